"""The exceptions of nctk's own.

Most errors raise the built-in exception their kind calls for
(``FileNotFoundError``, ``PermissionError``, ``ValueError``,
``NotImplementedError``, ``OSError``); these two are nctk's.
"""


class NctkError(Exception):
    """An nctk error of no more specific kind (and the base of nctk's own)."""


class CorruptDataError(NctkError, OSError):
    """A file or store breaks its format: a truncated or corrupt file,
    malformed metadata, a chunk that does not decode. The message names the
    file, key or URL and the byte offset where nctk found the fault."""
