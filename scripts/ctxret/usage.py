"""The token counts every context answer reports, as the Anthropic API names them."""

INPUT_KINDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
