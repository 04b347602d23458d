"""The differential tests' second process: the same Python code with compiled modules off.

A test starts ``Worker(script)``, a Python process running ``script`` (a path, or ``("-c",
code)``) with ``STRIDED_NO_CEXT`` set (``"1"``: every compiled module off; a comma list
names some), and asks it ``worker.ask(message)``; the script answers through
``serve(handle)``, ``handle(message)`` returning the reply. One pickle each way, framed by
its length. The script imports this module by its plain name (its folder is its
``sys.path[0]``); the tests import it relatively.
"""

from __future__ import annotations

import os
import pickle
import struct
import subprocess
import sys

_HEAD = struct.Struct("<Q")


def serve(handle) -> None:  # pragma: no cover - runs in the worker process
    """Answer each message from stdin with ``handle(message)`` on stdout, until stdin ends."""
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = inp.read(_HEAD.size)
        if len(head) < _HEAD.size:
            return
        reply = pickle.dumps(handle(pickle.loads(inp.read(_HEAD.unpack(head)[0]))))
        out.write(_HEAD.pack(len(reply)) + reply)
        out.flush()


class Worker:
    def __init__(self, script, no_cext: str = "1"):
        args = [str(script)] if isinstance(script, (str, os.PathLike)) else list(script)
        self.no_cext = no_cext
        self.proc = subprocess.Popen([sys.executable, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     env=dict(os.environ, STRIDED_NO_CEXT=no_cext))

    def ask(self, message):
        data = pickle.dumps(message)
        self.proc.stdin.write(_HEAD.pack(len(data)) + data)
        self.proc.stdin.flush()
        head = self.proc.stdout.read(_HEAD.size)
        if len(head) < _HEAD.size:
            raise RuntimeError(f"the STRIDED_NO_CEXT={self.no_cext} worker died "
                               f"(exit code {self.proc.wait()})")
        return pickle.loads(self.proc.stdout.read(_HEAD.unpack(head)[0]))

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.proc.stdout.close()  # (left open, the collector reports it as a ResourceWarning later)
