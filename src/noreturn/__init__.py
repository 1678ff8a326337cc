"""noreturn: the digital No Return (Marco Teubner, 2019)."""

__version__ = "0.1.0"
