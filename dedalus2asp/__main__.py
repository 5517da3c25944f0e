"""`python -m dedalus2asp`: the same command line as `dedalus2asp`."""

from .cli import main

main()
