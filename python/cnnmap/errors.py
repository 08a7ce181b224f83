"""cnnmap's errors: the CLI's one-line message and its exit code (cli.md)."""


class Error(Exception):
    """Any failure of a cnnmap call; .code is the exit code the CLI would give."""

    code = 4

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class UsageError(Error):
    """The call asked for something malformed (exit code 1)."""

    code = 1


class BadInput(Error):
    """A file cannot be read, parsed or validated (exit code 2)."""

    code = 2


class Infeasible(Error):
    """No design fits the board under the options (exit code 3)."""

    code = 3


_BY_CODE = {1: UsageError, 2: BadInput, 3: Infeasible}


def raise_for(code, message):
    raise _BY_CODE.get(code, Error)(message, code)
