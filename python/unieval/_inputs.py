"""Argument normalisation shared by the drop-in modules: lists of str (or any iterables of str)."""

import os


def as_lines(x, name):
    """A list of str from a list, tuple or any iterable of str (a lone str is a TypeError)."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"`{name}` should be a sequence of strings, not a single string")
    if x is None:
        raise TypeError(f"`{name}` should be a sequence of strings, not None")
    return x if isinstance(x, list) else list(x)


def as_streams(x, name, allow_none=False):
    """Reference streams (x[k][i] = k-th reference of segment i) as a list of lists of str."""
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"`{name}` should be a sequence of reference streams (sequences of strings)")
    streams = []
    for k, s in enumerate(x):
        if isinstance(s, (str, bytes)):
            raise TypeError(f"`{name}` should be a sequence of reference streams, e.g. [refs] for one "
                            f"reference per segment; item {k} is a string")
        s = as_lines(s, name)
        if not allow_none and any(r is None for r in s):
            raise TypeError(f"`{name}`: stream {k} holds None")
        streams.append(s)
    return streams


def is_path(x):
    return isinstance(x, (str, bytes, os.PathLike))
