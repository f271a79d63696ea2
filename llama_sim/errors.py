"""The one exception type that the CLI turns into a one-line message and exit status 2."""


class UsageError(ValueError):
    """Bad input from a user: unknown game or strategy, bad parameter, impossible position.

    ``details`` optionally holds the long text behind the one line (e.g. Numba's full compile
    error), which the CLI prints with ``--debug``."""

    def __init__(self, message: str = "", details: str | None = None):
        super().__init__(message)
        self.details = details

    def __reduce__(self):  # keep ``details`` when a Dask worker sends the error back
        return type(self), (str(self), self.details)
