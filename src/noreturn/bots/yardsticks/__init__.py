"""The frozen yardsticks: ``heuristic-v1`` and ``ismcts-v1``, the bots every gain is measured by.

A claim that a bot got stronger means something only against an opponent that does not
move. These modules are the first heuristic (``heuristic_v1``, with its policy in
``policy_v1``) and the first ISMCTS (``ismcts_v1``) exactly as they were frozen; their
decisions on 83 stored positions at 2, 3 and 4 players are pinned by
``tests/bots/test_yardsticks.py``. Change nothing here but what a change of the engine's
API forces, and keep that test green: new ideas go into new bots.
"""
