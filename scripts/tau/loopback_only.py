"""Imported first by the τ scripts that run the official code: every
connection that is not to loopback is refused (no request may leave the
machine), and litellm reads the model map it bundles instead of
downloading one (LITELLM_LOCAL_MODEL_COST_MAP)."""
import os
import socket

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

_connect = socket.socket.connect


def _loopback_only(sock, address):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost"):
        raise OSError(f"network refused by a τ script: {address!r}")
    return _connect(sock, address)


socket.socket.connect = _loopback_only
