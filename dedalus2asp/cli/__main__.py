"""`python -m dedalus2asp.cli`: the same command line as `dedalus2asp`."""

from . import main

main()
