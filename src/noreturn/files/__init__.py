"""Where finished work is written: output folders checked up front, writes that fall back.

A small layer beside ``records`` that imports the engine only (for its error base class):
the local table saves records through it, ``simulate`` and tournaments write their files
through it, the front ends catch its ``OutputError``, and the CLI checks folders with it
before any work starts.
"""

from noreturn.files.outputs import (
    OutputDir,
    OutputError,
    check_output_dir,
    data_dir,
    fallback_dirs,
    reason,
)

__all__ = ["OutputDir", "OutputError", "check_output_dir", "data_dir", "fallback_dirs", "reason"]
