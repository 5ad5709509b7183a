"""The validator rules, one module each, registered with :func:`mtgauntlet.validators.registry.rule` and listed in
:data:`mtgauntlet.validators.registry.MODULES` (see that module for what a rule declares)."""
