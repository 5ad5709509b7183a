"""The public Python API (``import mtgauntlet as mg``): one function per CLI verb, with the CLI's options as
keyword arguments (long option names, ``-`` becomes ``_``), the same defaults, the same checks and the same
errors, raised as `mtgauntlet.GauntletError` subclasses instead of printed. The ``gauntlet`` command and
the recipe runner are thin layers over these functions.

Every function is silent unless called with ``progress=True`` (a progress bar in a terminal or in Jupyter);
informational lines go to the ``mtgauntlet`` logger and warnings are `mtgauntlet.GauntletWarning`.
"""
