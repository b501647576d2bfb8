"""The stages: each module is what the rules of one stage run, pure functions above, file I/O only
in the functions named after its rules (`rule embed_shard` runs `def embed_shard` of
`stages/embed.py`, its `script:`). A stage may import every wing and presentation, never another
stage."""
