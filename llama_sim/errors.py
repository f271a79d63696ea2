"""The one exception type that the CLI turns into a one-line message and exit status 2."""


class UsageError(ValueError):
    """Bad input from a user: unknown game or strategy, bad parameter, impossible position."""
