"""The one door into libcnnmap: cm_api_call through ctypes.

ctypes releases the GIL for the length of every foreign call, so long optimisations
in other threads do not hold up the interpreter.
"""
import ctypes
import json
import os

from .errors import raise_for


class _Error(ctypes.Structure):
    # cnnmap/error.h: cm_error {cm_status code; char message[CM_ERROR_MESSAGE_MAX];}
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512)]


def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.environ.get("CNNMAP_LIBRARY") or os.path.join(here, "_cnnmap.so")
    lib = ctypes.CDLL(path)
    lib.cm_api_call.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_Error)]
    lib.cm_api_call.restype = ctypes.c_int
    lib.cm_api_free.argtypes = [ctypes.c_void_p]
    lib.cm_api_free.restype = None
    lib.cm_api_version.argtypes = []
    lib.cm_api_version.restype = ctypes.c_char_p
    return lib


_lib = _load()


def version():
    return _lib.cm_api_version().decode()


def call(command, **request):
    """Runs a command of cli.md; returns its --json object as a dict.

    Keyword arguments are the request: the command's arguments by name and its long
    options with '_' for '-'; None leaves an option at its default.
    """
    text = json.dumps({k: v for k, v in request.items() if v is not None})
    reply = ctypes.c_void_p()
    err = _Error()
    status = _lib.cm_api_call(command.encode(), text.encode(), ctypes.byref(reply),
                              ctypes.byref(err))
    if status != 0:
        raise_for(status, err.message.decode(errors="replace"))
    try:
        return json.loads(ctypes.string_at(reply.value).decode())
    finally:
        _lib.cm_api_free(reply)
