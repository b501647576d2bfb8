"""python -m ctxret <snakemake arguments>: see ctxret.launch."""
import sys

from .launch import main

sys.exit(main(sys.argv[1:]))
