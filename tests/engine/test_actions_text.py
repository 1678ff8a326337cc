"""The shared text form of actions and tiles, and the ``--rules`` text: round trips and errors."""

from __future__ import annotations

from collections.abc import Callable
from random import Random

import pytest
from scenario import HANDS_2P, deal, scenario, scoring_position, tiles

from noreturn.engine import (
    Action,
    Declare,
    Draw,
    Exchange,
    Mulligan,
    NotationError,
    Pass,
    Place,
    Rules,
    RulesError,
    Score,
    legal_actions,
    make_tile,
    new_game,
    parse_action,
    parse_tile,
    rollout_action,
    texts_of,
    tile_code,
    tiles_text,
)

EVERY_KIND: list[tuple[Action, str]] = [
    (Mulligan(), "mulligan"),
    (Mulligan(tuple(tiles("B3 R11 G7"))), "mulligan B3 G7 R11"),
    (Declare(), "declare"),
    (Exchange(tuple(tiles("G7 B3"))), "exchange B3 G7"),
    (Place(tuple(tiles("R9 R11 R9"))), "place R11 R9 R9"),
    (Score(0, 2, tuple(tiles("B5 B7"))), "score R x2 pay B7 B5"),
    (Score(5, 11, tuple(tiles("O1"))), "score P x11 pay O1"),
    (Pass(), "pass"),
    (Draw(make_tile(5, 11)), "draw P11"),
]


@pytest.mark.parametrize(("action", "text"), EVERY_KIND, ids=[t for _, t in EVERY_KIND])
def test_text_form_of_every_kind_reads_back(action: Action, text: str) -> None:
    assert str(action) == text
    assert parse_action(text) == action
    assert parse_action(str(action)) == action


@pytest.mark.parametrize(("action", "text"), EVERY_KIND, ids=[t for _, t in EVERY_KIND])
def test_repr_of_every_kind_pastes_back_into_python(action: Action, text: str) -> None:
    assert repr(action) == f"parse_action({text!r})"
    assert eval(repr(action), {"parse_action": parse_action}) == action


def test_text_form_of_every_legal_action_reads_back() -> None:
    for state in (deal(HANDS_2P), scenario(HANDS_2P), scoring_position(),
                  scenario(HANDS_2P, actions=["place R11"])):
        actions = legal_actions(state)
        assert actions
        for action in actions:
            assert parse_action(str(action)) == action


def test_legal_actions_are_the_values_their_constructors_make() -> None:
    """The generator builds actions without the sorting constructor (``of_sorted``): each
    must still be the canonical value, equal and hashing alike."""
    rng = Random(11)
    small = Rules(players=2, colors=2, max_value=4, hand_size=3)
    for rules in (Rules(players=2), Rules(players=3), small):
        for _ in range(3):
            state = new_game(rules, rng)
            while not state.is_over():
                if state.is_chance():
                    state.apply(state.sample_draw(rng))
                    continue
                actions = legal_actions(state)
                for action in actions:
                    make: Callable[..., object] = type(action)
                    remade = (Score(action.row, action.count, tuple(reversed(action.pay)))
                              if isinstance(action, Score) else
                              make(*(tuple(reversed(getattr(action, name)))
                                     for name in action.__slots__)))
                    assert remade == action and hash(remade) == hash(action)
                state.apply(rollout_action(state, rng))


def test_texts_of_writes_every_action_as_str_does() -> None:
    """The server's fast writer of legal actions (``texts_of``) gives ``str``'s text for
    every kind, legal actions of whole games with scoring, and refused actions whose
    tile or row has no colour."""
    odd: list[Action] = [Place((999,)), Exchange((3, -1)), Score(9, 2, (1,)), Score(0, 1, ()),
                         Place(), Mulligan()]
    assert texts_of([a for a, _ in EVERY_KIND] + odd) == [t for _, t in EVERY_KIND] + [
        str(a) for a in odd]
    assert [t.split()[1] for t in texts_of(odd)[:3]] == ["#999", tile_code(3), "#9"]
    rng = Random(5)
    seen: set[type] = set()
    for players in (2, 3, 4):
        state = new_game(Rules(players=players), rng)
        while not state.is_over():
            if state.is_chance():
                state.apply(state.sample_draw(rng))
                continue
            actions = legal_actions(state)
            seen.update(type(a) for a in actions)
            assert texts_of(actions) == [str(a) for a in actions]
            state.apply(rollout_action(state, rng))
    assert {Place, Exchange, Score, Mulligan, Declare} <= seen


def test_tiles_of_an_action_are_kept_in_descending_order() -> None:
    assert parse_action("place R9 R11") == parse_action("place R11 R9")
    # Descending by tile: by colour (last colour first), then by value.
    assert str(Exchange(tuple(tiles("R2 B1 G7 B9")))) == "exchange B9 B1 G7 R2"
    assert Exchange(tuple(tiles("R2 B1"))) == Exchange(tuple(tiles("B1 R2")))


def test_actions_keep_a_tuple_whatever_sequence_they_are_given() -> None:
    one = make_tile(0, 5)
    for given in ([one], (one,), iter([one])):
        place = Place(given)  # type: ignore[arg-type]
        assert place.tiles == (one,) and hash(place) == hash(Place((one,)))
    assert Exchange([make_tile(0, 2), make_tile(4, 9)]).tiles == (  # type: ignore[arg-type]
        make_tile(4, 9), make_tile(0, 2))


def test_tile_codes_are_total_so_a_refusal_can_name_any_tile() -> None:
    assert [tile_code(make_tile(c, 11)) for c in range(6)] == [
        "R11", "O11", "Y11", "G11", "B11", "P11"]
    assert tile_code(make_tile(5, 31)) == "P31" and tile_code(make_tile(0, 0)) == "R0"
    for bad in (-1, -33, make_tile(6, 1), 10**6):
        assert tile_code(bad) == f"#{bad}"
    assert tiles_text([make_tile(0, 11), -1, make_tile(4, 3)]) == "R11 #-1 B3"


def test_text_form_reads_any_case_and_colour_names() -> None:
    assert parse_action("PLACE r11 R9") == Place(tuple(tiles("R11 R9")))
    assert parse_action("score red X2 pay b7 B5") == Score(0, 2, tuple(tiles("B7 B5")))
    assert parse_action("  declare ") == Declare()
    assert parse_tile("b3") == make_tile(4, 3)


def test_tile_text_form_reads_back() -> None:
    for tile in Rules(max_value=11).kinds():
        assert parse_tile(tile_code(tile)) == tile


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", ["empty action", "place R11 R9"]),
        ("   ", ["empty action"]),
        ("place", ["place", "at least one tile"]),
        ("exchange", ["exchange", "at least one tile"]),
        ("score R pay", ["score R x2 pay B7 B5"]),
        ("score R x2", ["score R x2 pay B7 B5"]),
        ("score R x2 pay", ["pay", "at least one tile"]),
        ("score R xx pay B1", ["x followed by a number"]),
        ("score R 2 pay B1", ["score R x2 pay B7 B5"]),
        ("score Q x1 pay B1", ["'Q' is not a colour", "R, O, Y, G, B, P"]),
        ("R0", ["not an action", "place R11 R9"]),
        ("X3", ["not an action"]),
        ("place R0", ["'R0' is not a tile", "1..31"]),
        ("place X3", ["'X3' is not a tile", "colour letter"]),
        ("place R11 Q2", ["'Q2' is not a tile", "R11 or B3"]),
        ("place R", ["'R' is not a tile"]),
        ("place 11", ["'11' is not a tile"]),
        ("draw", ["not an action"]),
        ("draw R1 R2", ["not an action"]),
        ("declare now", ["not an action"]),
        ("jump R1", ["not an action", "declare"]),
    ],
)
def test_bad_action_text_raises_notation_error_saying_what_to_write(
    text: str, words: list[str]
) -> None:
    with pytest.raises(NotationError) as caught:
        parse_action(text)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize("text", ["R0", "X3", "R", "3", "RR3", "R-1", "R32", "", "R 3"])
def test_bad_tile_text_raises_notation_error(text: str) -> None:
    with pytest.raises(NotationError, match="is not a tile"):
        parse_tile(text)


@pytest.mark.parametrize(("text", "named"), [
    ("place R1 " + "x" * 100_000, "'xxxxxxxxxx"), ("jump" * 30_000, "'jumpjumpjump"),
    ("exchange R1 B" + "9" * 5000, "'B99999999"), ("score R x" + "2" * 5000, "'score R x22222")])
def test_a_long_bad_text_is_named_by_its_start_not_echoed_whole(text: str, named: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_action(text)
    message = str(caught.value)
    assert len(message) < 300
    assert f"{named}" in message and "..." in message


def test_a_long_tile_text_is_named_by_its_start() -> None:
    with pytest.raises(NotationError, match=r"^'R9{55}\.\.\. is not a tile"):
        parse_tile("R" + "9" * 5000)


def test_rules_parse_reads_key_value_text() -> None:
    assert Rules.parse("colors=3,max_value=5") == Rules(colors=3, max_value=5)
    assert Rules.parse("") == Rules()
    assert Rules.parse(" players = 3 , hand_size=5 ") == Rules(players=3, hand_size=5)
    assert Rules.parse("colors=2", players=4, hand_size=2) == Rules(players=4, colors=2,
                                                                     hand_size=2)
    assert Rules.from_dict(Rules(players=3).to_dict()) == Rules(players=3)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("colors", ["'colors' is not KEY=NUMBER", "colors=3"]),
        ("colors=x", ["is not KEY=NUMBER"]),
        ("colors=", ["is not KEY=NUMBER"]),
        ("colours=3", ["unknown key 'colours'", "known keys"]),
        ("players=5", ["players must be a whole number from 2 to 4", "not 5"]),
        ("colors=7", ["colors must be a whole number from 1 to 6"]),
        ("colors=-1", ["colors must be"]),
        ("hand_size=0", ["hand_size must be"]),
        ("colors=1,max_value=4,copies=2", ["must hold more tiles than players x hand_size"]),
        ("colors=" + "9" * 5000, ["colors has a number of 5,000 digits"]),  # int() refused
        ("copies=-" + "9" * 10, ["copies has a number of 10 digits"]),
        ("colors=0000000000003,players=5", ["players must be"]),  # leading zeros are no size
        ("x" * 5000, ["'xxx", "...' is not KEY=NUMBER"]),
    ],
)
def test_bad_rules_text_raises_rules_error(text: str, words: list[str]) -> None:
    with pytest.raises(RulesError) as caught:
        Rules.parse(text)
    for word in words:
        assert word in str(caught.value)
    assert len(str(caught.value)) < 200  # a long text is quoted by its start


def test_rules_from_dict_needs_players() -> None:
    with pytest.raises(RulesError, match="'players' is required"):
        Rules.from_dict({"colors": 3})
