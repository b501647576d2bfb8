"""The stages: each module is what one or more rules run (scripts/<rule>.py calls its run()),
pure functions above, file I/O only in run(); a stage never imports another stage."""
