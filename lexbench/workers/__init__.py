"""Third-party library workers that ship in the package (SPEC §5, "third-party tools and library workers").

Each module here is a script run by path under the interpreter a provider's configuration names (the
one that has its extra); it imports nothing from lexbench, so that interpreter need not have lexbench
installed. Shipping them inside the package keeps them beside an installed wheel, outside a checkout.
"""
