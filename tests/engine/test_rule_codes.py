"""Every rule code of ``RULE_CODES`` is produced by an illegal action: one test per code,
named after it (``test_row_order``), each checking the ``IllegalActionError.code`` that
``play`` raises (``refused`` also checks the state is unchanged) and the ``Refusal`` that
``refusal`` gives. A code without its test fails ``test_every_rule_code_has_its_test``.

The words of each refusal are tested rule by rule in test_illegal_actions.py; here only the
codes, which programs (the server's clients) rely on.
"""

from __future__ import annotations

import pickle
import sys
from random import Random

import pytest
from scenario import HANDS_2P, deal, refused, run, scenario, scoring_position, tiles

from noreturn.engine import (
    RULE_CODES,
    Action,
    Declare,
    Draw,
    Exchange,
    GameState,
    IllegalActionError,
    Mulligan,
    NotationError,
    Pass,
    Place,
    Refusal,
    Rules,
    Score,
    layout,
    legal_actions,
    make_tile,
    parse_action,
    refusal,
    rollout_action,
)
from noreturn.rl.gymnasium import NoReturnEnv, resolve_action
from noreturn.table import LocalTable, make_seats


def coded(state: GameState, action: Action, code: str) -> None:
    """``action`` is refused with ``code`` by ``play`` and by ``refusal``, state unchanged."""
    assert refused(state, action).code == code
    found = refusal(state, action)
    assert found is not None and found.code == code


def place(text: str) -> Place:
    """PLACE of the tiles written ``text``."""
    return Place(tuple(tiles(text)))


def test_game_over() -> None:
    state = scenario(HANDS_2P, actions=["declare", "exchange B1", "draw *", "declare",
                                        "exchange P1", "draw *"])
    assert state.is_over()
    coded(state, Pass(), "game_over")


def test_not_your_turn() -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), Rules(players=2), seed=4)
    table.run_bots()
    assert table.try_action(Mulligan(())) is None
    assert table.bot_to_move()
    found = table.refusal(Declare())
    assert found is not None and found.code == "not_your_turn"
    assert table.why_not(Declare()) == found.reason


def test_not_an_action() -> None:
    state = scenario(HANDS_2P)
    with pytest.raises(IllegalActionError) as caught:
        state.play("place R11")  # type: ignore[arg-type]
    assert caught.value.code == "not_an_action"


def test_bad_id() -> None:
    state = scenario(HANDS_2P)
    assert sorted(state.hands[0])[:2] == tiles("R5 R5")
    second_r5 = layout(state.rules).place + 0b10  # R5 through the second of equal positions
    for bad in ("7", 10**9, second_r5):
        found = resolve_action(state, bad)
        assert isinstance(found, Refusal) and found.code == "bad_id", (bad, found)
    env = NoReturnEnv(rules=Rules(players=2), illegal_action="raise")
    env.reset(seed=1)
    with pytest.raises(IllegalActionError) as caught:
        env.step(layout(Rules(players=2)).size + 1)
    assert caught.value.code == "bad_id"


def test_not_a_tile() -> None:
    coded(scenario(HANDS_2P), place("R12"), "not_a_tile")


def test_no_draw_due() -> None:
    coded(scenario(HANDS_2P), Draw(make_tile(0, 1)), "no_draw_due")


def test_draw_first() -> None:
    coded(scenario(HANDS_2P, actions=["place R11 R9"]), Declare(), "draw_first")


def test_not_in_bag() -> None:
    state = scenario(HANDS_2P, actions=["place R11 R9", "draw R11"])
    coded(state, Draw(make_tile(0, 11)), "not_in_bag")


def test_not_in_hand() -> None:
    coded(scenario(HANDS_2P), place("R10"), "not_in_hand")
    coded(scoring_position(), parse_action("score G x1 pay B11"), "not_in_hand")


def test_mulligan_first() -> None:
    coded(deal(HANDS_2P), place("R11"), "mulligan_first")


def test_mulligan_too_many() -> None:
    state = deal(["R1 R2 R3 R4", "R5 R6 R7 R8"], Rules(players=2, colors=1, max_value=9,
                                                       copies=1, hand_size=4))
    coded(state, Mulligan(tuple(tiles("R1 R2"))), "mulligan_too_many")


def test_mulligan_over() -> None:
    coded(scenario(HANDS_2P), Mulligan(), "mulligan_over")


def test_already_declared() -> None:
    coded(scoring_position(), Declare(), "already_declared")


def test_cannot_pass() -> None:
    coded(scenario(HANDS_2P), Pass(), "cannot_pass")


def test_exchange_count() -> None:
    coded(scenario(HANDS_2P), Exchange(), "exchange_count")
    coded(scenario(HANDS_2P), Exchange(tuple(tiles("R11 R9 R5 R5 B8"))), "exchange_count")


def test_place_in_phase_2() -> None:
    coded(scoring_position(), place("O3"), "place_in_phase_2")


def test_no_tiles() -> None:
    coded(scenario(HANDS_2P), Place(), "no_tiles")
    coded(scoring_position(), Score(3, 1, ()), "no_tiles")


def test_mixed_colours() -> None:
    coded(scenario(HANDS_2P), place("R11 B8"), "mixed_colours")
    coded(scoring_position(), parse_action("score G x1 pay B1 O2"), "mixed_colours")


def test_row_order() -> None:
    state = scenario(HANDS_2P, actions=["place R9", "draw *", "exchange P1", "draw *"])
    coded(state, place("R11"), "row_order")


def test_score_in_phase_1() -> None:
    state = scenario(HANDS_2P, actions=["place R9", "draw *", "exchange P1", "draw *"])
    coded(state, parse_action("score R x1 pay B8 B1"), "score_in_phase_1")


def test_no_such_row() -> None:
    coded(scoring_position(), Score(6, 1, tuple(tiles("B8"))), "no_such_row")


def test_empty_row() -> None:
    coded(scoring_position(), parse_action("score B x1 pay O3"), "empty_row")


def test_score_count() -> None:
    coded(scoring_position(), Score(0, 0, tuple(tiles("B8"))), "score_count")
    coded(scoring_position(), Score(3, 3, tuple(tiles("B8 B7"))), "score_count")


def test_underpaid() -> None:
    coded(scoring_position(), parse_action("score R x2 pay B8 B1"), "underpaid")


# ------------------------------------------------------------------------ the list
def test_every_rule_code_has_its_test() -> None:
    module = sys.modules[__name__]
    missing = [code for code in RULE_CODES if not callable(getattr(module, f"test_{code}", None))]
    assert not missing, f"rule codes without a test named after them: {missing}"


def test_codes_are_short_snake_case_and_explained() -> None:
    for code, meaning in RULE_CODES.items():
        assert code.replace("_", "").isalnum() and code == code.lower() and len(code) <= 20
        assert meaning


def test_random_illegal_actions_carry_listed_codes() -> None:
    """Actions legal somewhere else, tried where they are not: every refusal has a code of
    the list, and ``play`` raises that code."""
    rng = Random(5)
    state = GameState(Rules(players=3), 0)
    tried: list[Action] = []
    seen: set[str] = set()
    while not state.is_over():
        for action in tried[-30:]:
            found = refusal(state, action)
            if found is not None:
                assert found.code in RULE_CODES
                seen.add(found.code)
        legal = legal_actions(state)
        tried += rng.sample(legal, min(3, len(legal)))
        state.apply(state.sample_draw(rng) if state.is_chance() else rollout_action(state, rng))
    assert len(seen) >= 8, seen


def test_the_code_survives_pickling() -> None:
    error = IllegalActionError("place R12: R12 is not a tile of this game", "not_a_tile")
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.code) == (str(error), error.code)


def test_a_worded_error_survives_pickling_with_its_template() -> None:
    """A process pool sends errors back pickled; a front end still translates them."""
    error = NotationError("cannot read {text}: not a tile", {"text": "R" * 100})
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.template) == (NotationError, str(error),
                                                      error.template)
    assert copy.params == error.params and len(str(copy)) < 100  # the quoted text cut


def test_a_legal_action_has_no_refusal() -> None:
    state = scoring_position()
    assert refusal(state, parse_action("score R x2 pay B7 B3")) is None
    run(state, ["score R x2 pay B7 B3"])  # played through the checked play
