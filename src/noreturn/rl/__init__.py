"""Research interfaces: No Return behind PettingZoo, Gymnasium and OpenSpiel.

Install with ``pip install 'noreturn[rl]'`` (PettingZoo and Gymnasium) or
``'noreturn[openspiel]'``. The submodules are named after the library they serve:

* ``noreturn.rl.pettingzoo``: ``env()`` / ``raw_env``, an AEC environment for 2-4 seats;
* ``noreturn.rl.gymnasium``: ``env(**options)``, one seat against bots, registered as
  ``noreturn/NoReturn-v0``;
* ``noreturn.rl.openspiel``: importing it registers ``python_no_return`` with OpenSpiel.

All three take their numbers from ``noreturn.rl.features`` (docs/rl.md).
"""
