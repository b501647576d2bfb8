"""python -m ctxret <snakemake arguments>: see ctxret.runtime.launch."""
import sys

from ctxret.runtime.launch import main

sys.exit(main(sys.argv[1:]))
