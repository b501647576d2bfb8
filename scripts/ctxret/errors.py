"""The one error type a user sees: a clear message, no traceback."""


class InputError(Exception):
    """Bad input or configuration; the message names the file (and line) at fault."""
