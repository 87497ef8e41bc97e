"""Error and warning types shared by the whole package."""


class InputError(ValueError):
    """Bad input: a malformed file, invalid graph data or invalid arguments.

    The message is a single line that names the source (file or argument)
    and the reason, so that the command-line interface can print it as is.
    """


class InfeasibleBalanceWarning(UserWarning):
    """The balance constraint could not be met by the returned partition."""
