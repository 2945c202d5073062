"""Hand ranking: treys-exact scalar and batch ranks, tables and cache, generic ranking, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from treys import Evaluator
from treys.lookup import LookupTable

from acpcbot import evaluator as ev
from acpcbot.cards import TREYS_INT, CardError, parse_cards
from acpcbot.evaluator import tables as ev_tables

TREYS = Evaluator()


def treys_rank(cards) -> int:
    t = [TREYS_INT[c] for c in cards]
    return TREYS.evaluate(t[:2], t[2:])


def random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """n uniformly random hands of ``size`` distinct cards (rejection of rows with a repeat)."""
    out = np.empty((0, size), dtype=np.int64)
    while len(out) < n:
        draw = rng.integers(0, 52, size=(int((n - len(out)) * 1.7) + 10, size))
        s = np.sort(draw, axis=1)
        out = np.vstack([out, draw[(np.diff(s, axis=1) != 0).all(axis=1)]])
    return out[:n]


class VectorTreys:
    """treys' own algorithm (Cactus Kev prime products, best of every five-card subset)
    vectorised with numpy over treys' lookup dictionaries: an independent reference."""

    def __init__(self) -> None:
        table = LookupTable()
        self.flush_keys = np.array(sorted(table.flush_lookup), dtype=np.int64)
        self.flush_vals = np.array([table.flush_lookup[k] for k in self.flush_keys], dtype=np.int64)
        self.plain_keys = np.array(sorted(table.unsuited_lookup), dtype=np.int64)
        self.plain_vals = np.array([table.unsuited_lookup[k] for k in self.plain_keys], dtype=np.int64)
        treys_ints = np.array(TREYS_INT, dtype=np.int64)
        self.prime = treys_ints & 0xFF
        self.suit = (treys_ints >> 12) & 0xF

    def rank(self, hands: np.ndarray) -> np.ndarray:
        best = np.full(len(hands), 10_000, dtype=np.int64)
        for combo in itertools.combinations(range(hands.shape[1]), 5):
            cols = hands[:, list(combo)]
            product = np.prod(self.prime[cols], axis=1)
            suited = np.bitwise_and.reduce(self.suit[cols], axis=1) != 0
            flush = self.flush_vals[np.clip(np.searchsorted(self.flush_keys, product), 0, len(self.flush_keys) - 1)]
            plain = self.plain_vals[np.clip(np.searchsorted(self.plain_keys, product), 0, len(self.plain_keys) - 1)]
            best = np.minimum(best, np.where(suited, flush, plain))
        return best


@pytest.fixture(scope="module")
def vector_treys() -> VectorTreys:
    return VectorTreys()


# --- the reference itself is treys -------------------------------------------------

def test_vector_reference_is_treys(vector_treys):
    rng = np.random.default_rng(11)
    for size in (5, 6, 7):
        hands = random_hands(rng, 3000, size)
        assert vector_treys.rank(hands).tolist() == [treys_rank(h) for h in hands.tolist()]


# --- batch and scalar paths equal treys ------------------------------------------

@pytest.mark.parametrize("size", [5, 6, 7])
def test_batch_equals_treys_on_random_hands(size, vector_treys):
    # 250,000 hands a size: every rank class many times over (the exhaustive rank-multiset and
    # flush-pattern check below covers the rare ones); a million took 15 s of the quick suite
    rng = np.random.default_rng(1000 + size)
    hands = random_hands(rng, 250_000, size)
    expected = vector_treys.rank(hands)
    assert np.array_equal(ev.rank_batch(hands), expected)
    assert np.array_equal(ev.rank_batch(hands.astype(np.uint8), check=False), expected)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_scalar_paths_equal_treys(size):
    rng = np.random.default_rng(20 + size)
    hands = random_hands(rng, 4000, size).tolist()
    for h in hands:
        r = treys_rank(h)
        assert ev.rank(h) == r
        assert ev.showdown_value(h) == 7463 - r
        assert ev.showdown_value(tuple(h)) == 7463 - r


def test_every_straight_flush_in_every_suit():
    for top in range(3, 13):
        ranks = [12, 0, 1, 2, 3] if top == 3 else list(range(top - 4, top + 1))
        for suit in range(4):
            five = [r * 4 + suit for r in ranks]
            # two more cards of another suit that cannot improve the hand
            seven = five + [((ranks[2] + 6) % 13) * 4 + (suit + 1) % 4, ((ranks[2] + 7) % 13) * 4 + (suit + 2) % 4]
            assert ev.rank(five) == ev.rank(seven) == treys_rank(seven) == 13 - top


def test_every_rank_multiset_and_flush_pattern_equals_treys():
    # Exhaustive over the tables' domain, with a suit assignment other than the
    # one the tables were built from: every non-flush rank multiset of 5..7
    # cards and every 5..7-card flush pattern, through the public rank().
    for n in (5, 6, 7):
        for ms in itertools.combinations_with_replacement(range(13), n):
            if max(ms.count(r) for r in set(ms)) > 4:
                continue
            hand = [r * 4 + (3 * i + 1) % 4 for i, r in enumerate(ms)]
            assert ev.rank(hand) == treys_rank(hand), hand
    for bits in range(1 << 13):
        if 5 <= bin(bits).count("1") <= 7:
            hand = [r * 4 + 1 for r in range(13) if bits >> r & 1]
            assert ev.rank(hand) == treys_rank(hand), hand


# --- the evaluator note (docs/studies.md) -------------------------------

NOTE_CASES = [
    "5s4s3s2sAs", "AsKsQsJsTs", "AsKs5s4s3s2s", "9h8h7h6h6s5s4h", "9h8h7h6h5h6s4c",
    "AsAdKsKhKdKc2c", "5s5h5d3s3h", "AsAhKsKhKd", "QsQhQd5s2h", "KsQc7s7h7d3c",
    "AsAhQsQh5d", "AsAhQsQh6d", "AdAcQdQc5s",
]


def test_note_cases_batch_and_scalar_equal_treys():
    for text in NOTE_CASES:
        cards = parse_cards(text)
        assert ev.rank(text) == ev.rank(cards) == treys_rank(cards), text
        assert ev.rank_batch(np.array([cards]))[0] == treys_rank(cards), text


def test_wheel_straight_flush_is_not_royal():
    r = ev.rank("5s4s3s2sAs")
    assert r == 10 and ev.rank_class(r) == ev.RankClass.STRAIGHT_FLUSH
    assert ev.rank("AsKsQsJsTs") == 1 and ev.rank_class(1) == ev.RankClass.ROYAL_FLUSH
    assert ev.rank_class_name(ev.rank_class(r)) == "Straight Flush"


def test_ace_king_five_four_three_two_suited_is_a_five_high_straight_flush():
    assert ev.rank("AsKs5s4s3s2s") == ev.rank("5s4s3s2sAs") == 10


def test_straight_flush_only_among_the_suited_cards():
    # Straight 9-5 across suits, hearts 9-8-7-6-4: a flush, not a straight flush.
    r = ev.rank("9h8h7h6h6s5s4h")
    assert ev.rank_class(r) == ev.RankClass.FLUSH
    assert r == ev.rank("9h8h7h6h4h")
    # Same ranks with 9-5 all hearts: the 9-high straight flush.
    assert ev.rank("9h8h7h6h5h6s4c") == 6


def test_quads_hide_behind_a_full_house_reading():
    r = ev.rank("AsAdKsKhKdKc2c")
    assert ev.rank_class(r) == ev.RankClass.FOUR_OF_A_KIND
    assert r == ev.rank("KsKhKdKcAs")


def test_full_house_and_trips_and_two_pair_order():
    assert ev.rank("5s5h5d3s3h") > ev.rank("AsAhKsKhKd")
    assert ev.rank("QsQhQd5s2h") < ev.rank("KsQc7s7h7d3c")
    assert ev.rank("AsAhQsQh5d") > ev.rank("AsAhQsQh6d")


def test_equal_hands_split():
    assert ev.rank("AsAhQsQh5d") == ev.rank("AdAcQdQc5s")
    e = ev.equity("2c3d", "AsKsQsJsTs")  # the board plays for everyone
    assert (e.win, e.tie, e.loss, e.equity) == (0.0, 1.0, 0.0, 0.5)


# --- rank classes -------------------------------------------------------------------

def test_rank_classes_match_treys_for_every_rank():
    all_ranks = np.arange(1, 7463)
    classes = ev.rank_class_batch(all_ranks)
    for r in range(1, 7463):
        cls = TREYS.get_rank_class(r)
        assert ev.rank_class(r) == cls == classes[r - 1]
        assert ev.rank_class_name(cls) == TREYS.class_to_string(cls)
    assert ev.hand_description("AsAdKsKhKdKc2c") == "Four of a Kind"


# --- generic ranking ---------------------------------------------------------------

def test_generic_value_orders_like_treys():
    rng = np.random.default_rng(7)
    for size in (5, 6, 7):
        hands = random_hands(rng, 1500, size).tolist()
        for a, b in zip(hands[::2], hands[1::2]):
            ga, gb = ev.generic_value(a), ev.generic_value(b)
            ta, tb = treys_rank(a), treys_rank(b)
            assert (ga > gb) == (ta < tb) and (ga == gb) == (ta == tb), (a, b)


def test_generic_value_small_games():
    # Leduc (hole + board): a pair beats any high card; higher pair wins.
    kk, aq = parse_cards("KsKh"), parse_cards("AsQh")
    assert ev.showdown_value(kk) > ev.showdown_value(aq)
    assert ev.showdown_value(parse_cards("QsQh")) < ev.showdown_value(kk)
    # Kuhn: one card, higher rank wins.
    assert ev.showdown_value(parse_cards("As")) > ev.showdown_value(parse_cards("Ks"))
    assert ev.showdown_value(parse_cards("Ks")) == ev.showdown_value(parse_cards("Kh"))


def test_generic_value_ten_cards_takes_the_better_of_two_flushes():
    # Five hearts to the 9 and five spades to the ace: the spade flush plays.
    cards = parse_cards("9h7h5h3h2hAsJs8s6s4s")
    assert ev.generic_value(cards) == ev.generic_value(parse_cards("AsJs8s6s4s"))
    sf = parse_cards("9h8h7h6h5hAsJs8s6s4s")
    assert ev.generic_value(sf) == ev.generic_value(parse_cards("9h8h7h6h5h"))


def test_generic_value_full_house_pairs_the_best_other_rank():
    # Eight cards, two trips and a pair: kings full of aces (the pair), not of queens.
    cards = parse_cards("KsKhKdQsQhQdAsAh")
    assert ev.generic_value(cards) == ev.generic_value(parse_cards("KsKhKdAsAh"))
    # with the pair below the second trips, the trips' rank fills the full house
    assert ev.generic_value(parse_cards("KsKhKdQsQhQd2s2h")) == ev.generic_value(parse_cards("KsKhKdQsQh"))


# --- tables and cache --------------------------------------------------------------

def test_rank_weights_separate_every_rank_multiset():
    w = np.array(ev.RANK_WEIGHTS)
    for n in (5, 6, 7):
        ms = np.array([m for m in itertools.combinations_with_replacement(range(13), n)
                       if max(m.count(r) for r in set(m)) <= 4])
        sums = w[ms].sum(axis=1)
        assert len(np.unique(sums)) == len(sums)


@pytest.fixture
def counted_build(monkeypatch):
    """build_tables replaced by a copy of the live tables, counting calls (the real build runs at import)."""
    live = ev.load_tables()
    calls = []

    def build():
        calls.append(1)
        return {k: v.copy() for k, v in live.items()}
    monkeypatch.setattr(ev_tables, "build_tables", build)
    return calls


def test_cache_is_written_then_reused(tmp_path, counted_build):
    first = ev.load_tables(tmp_path)
    files = list(tmp_path.glob("rank_tables_*.npz"))
    assert len(files) == 1 and ev.table_stamp() in files[0].name and len(counted_build) == 1
    again = ev.load_tables(tmp_path)
    assert len(counted_build) == 1
    assert all(np.array_equal(first[k], again[k]) for k in first)


def test_the_tables_stamp_names_the_installed_treys_release():
    # the release is read from treys' dist-info folder (importlib.metadata's scan took 40 ms a process); the stamp
    # must still name what pip installed, so a cache made with another release is never read
    from importlib import metadata
    ev_tables._treys_version.cache_clear()
    assert ev_tables._treys_version() == metadata.version("treys")


def test_stale_or_corrupt_cache_is_rebuilt(tmp_path, counted_build):
    good = ev.load_tables(tmp_path)
    path = next(tmp_path.glob("rank_tables_*.npz"))
    # A file under the right name whose stamp is another version's.
    tables = dict(good)
    tables["ranks7"] = np.zeros_like(tables["ranks7"])
    np.savez(path, stamp=np.array("old-version"), **tables)
    assert np.array_equal(ev.load_tables(tmp_path)["ranks7"], good["ranks7"])
    assert len(counted_build) == 2
    path.write_bytes(b"not a zip file")
    assert np.array_equal(ev.load_tables(tmp_path)["ranks7"], good["ranks7"])
    assert len(counted_build) == 3
    # Tables of the wrong size under a fresh stamp are rebuilt too.
    np.savez(path, stamp=np.array(ev.table_stamp()), **{**tables, "keys7": tables["keys7"][:10]})
    ev.load_tables(tmp_path)
    assert len(counted_build) == 4
    # A cache of an older version is removed when the new one is written.
    old = tmp_path / "rank_tables_0123456789abcdef.npz"
    old.write_bytes(b"x")
    path.unlink()
    ev.load_tables(tmp_path)
    assert not old.exists() and path.exists()


@pytest.mark.parametrize("keep", [100, 0.5])
def test_truncated_cache_is_rebuilt(tmp_path, counted_build, keep):
    # A cut zip archive (the file starts as one, then stops) raises zipfile's
    # own error, not OSError or ValueError; the import must not fail on it.
    good = ev.load_tables(tmp_path)
    path = next(tmp_path.glob("rank_tables_*.npz"))
    data = path.read_bytes()
    path.write_bytes(data[:keep if isinstance(keep, int) else int(len(data) * keep)])
    assert np.array_equal(ev.load_tables(tmp_path)["ranks7"], good["ranks7"])
    assert len(counted_build) == 2
    ev.load_tables(tmp_path)  # and the rebuilt cache was written whole
    assert len(counted_build) == 2


def test_tampered_cache_is_rebuilt(tmp_path, counted_build):
    # A cache with the right stamp and shapes but changed ranks (a few payoffs
    # would flip) is caught by its content digest and rebuilt.
    good = ev.load_tables(tmp_path)
    path = next(tmp_path.glob("rank_tables_*.npz"))
    tables = {k: v.copy() for k, v in good.items()}
    tables["ranks7"][[5, 500, 5000]] += 1
    np.savez(path, stamp=np.array(ev.table_stamp()), **tables)
    assert np.array_equal(ev.load_tables(tmp_path)["ranks7"], good["ranks7"])
    assert len(counted_build) == 2


def test_cache_of_an_unknown_treys_is_spot_checked(monkeypatch, tmp_path, counted_build):
    # Without a known digest the cache is compared with treys on sample hands:
    # a flush table of zeros fails, the true tables pass.
    good = ev.load_tables(tmp_path)
    monkeypatch.setattr(ev_tables, "KNOWN_DIGESTS", {})
    assert ev_tables.tables_valid({k: v.copy() for k, v in good.items()})
    broken = {k: v.copy() for k, v in good.items()}
    broken["flush"][:] = 0
    assert not ev_tables.tables_valid(broken)


@pytest.fixture(scope="module")
def built_tables() -> dict:
    """One real build of the tables from scratch (seconds of numpy), read by the two checks below."""
    return ev_tables.build_tables()


def test_digest_of_the_built_tables_is_the_known_one(built_tables):
    assert ev_tables.table_digest(built_tables) == ev_tables.KNOWN_DIGESTS["0.1.8"]


def test_unwritable_cache_builds_in_memory(tmp_path, counted_build):
    blocker = tmp_path / "file"
    blocker.write_text("a file where a directory should be")
    tables = ev.load_tables(blocker / "acpcbot")
    assert tables["ranks7"].shape == (49205,) and len(counted_build) == 1


def test_real_build_matches_the_loaded_tables(built_tables):
    built = built_tables
    loaded = ev.load_tables()
    assert built.keys() == loaded.keys()
    assert all(np.array_equal(built[k], loaded[k]) for k in built)


def test_cache_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert ev.cache_dir() == tmp_path / "acpcbot"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert ev.cache_dir().parts[-2:] == (".cache", "acpcbot")


# --- hole pairs ------------------------------------------------------------------

def test_pair_index_round_trip():
    for i in range(ev.NUM_PAIRS):
        a, b = ev.pair_cards(i)
        assert a < b and ev.pair_index(a, b) == ev.pair_index(b, a) == i == ev.PAIR_INDEX[a, b] == ev.PAIR_INDEX[b, a]
    assert ev.pair_index("As", "Ah") == ev.pair_index(parse_cards("Ah")[0], parse_cards("As")[0])


def test_pair_ranks():
    board = parse_cards("Ts7d2s9h")
    ranks = ev.pair_ranks(board)
    for i in range(0, ev.NUM_PAIRS, 7):
        a, b = ev.pair_cards(i)
        assert ranks[i] == (0 if {a, b} & set(board) else treys_rank([a, b, *board]))
    many = ev.pair_ranks(np.array([board, parse_cards("AsKsQs2c")]))
    assert np.array_equal(many[0], ranks) and many.shape == (2, ev.NUM_PAIRS)


def test_pair_ranks_match_every_pairs_own_keys_on_flush_boards():
    """Ranks spread from the 91 rank pairs (flushes patched per suit) equal those of every pair's own keys, on
    boards of 3..5 cards with two to five cards of a suit (one suit and near flushes both)."""
    from acpcbot.evaluator.pairs import PAIR_B, _keyed_ranks, key_sums
    rng = np.random.default_rng(11)
    for k in (3, 4, 5):
        for same in range(2, k + 1):
            boards = []
            for _ in range(60):
                suit = int(rng.integers(4))
                ranks = rng.permutation(13)
                cards = [4 * int(r) + suit for r in ranks[:same]]
                rest = [c for c in rng.permutation(52) if c % 4 != suit][:k - same]
                boards.append(cards + [int(c) for c in rest])
            arr = np.array(boards)
            a, b = key_sums(arr)
            want = _keyed_ranks(a, b, k + 2)
            want[(b[:, None] & PAIR_B[None, :]) != 0] = 0
            assert np.array_equal(ev.pair_ranks(arr), want)


def test_pair_ranks_of_a_large_batch_are_each_boards_own():
    """A batch larger than a block (ranked a block of boards at a time) gives every board's own ranks, by treys."""
    rng = np.random.default_rng(5)
    boards = np.array([rng.permutation(52)[:5] for _ in range(150)])
    many = ev.pair_ranks(boards)
    assert many.shape == (150, ev.NUM_PAIRS)
    for r in (0, 63, 64, 65, 127, 128, 149):
        assert np.array_equal(many[r], ev.pair_ranks([int(c) for c in boards[r]]))
    for r, i in zip(rng.integers(0, 150, 40), rng.integers(0, ev.NUM_PAIRS, 40)):
        a, b = ev.pair_cards(int(i))
        board = [int(c) for c in boards[r]]
        assert many[r, i] == (0 if {a, b} & set(board) else treys_rank([a, b, *board]))


# --- bad input ---------------------------------------------------------------------

@pytest.mark.parametrize("bad, fragment", [
    ("AsAsKdQh2c", "As appears twice"),
    ([0, 1, 2, 3, 0], "appears twice"),
    ("AsKdQh2c", "5 to 7 cards"),
    ("AsKdQh2c3c4c5c6c", "5 to 7 cards"),
    ("AsKdQh2c3x", "suit"),
    ("AsKdQh2c1c", "rank"),
    ("AsKdQh2c3", "odd length"),
    ("askdqh2c3c", "case"),
    ([0, 1, 2, 3, 52], "out of range"),
    ([0, 1, 2, 3, -1], "out of range"),
    ([0, 1, 2, 3, 4.0], "int 0..51"),
    ([0, 1, 2, 3, True], "int 0..51"),
    ([0, 1, 2, 3, None], "int 0..51"),
    (5, "sequence of card ints"),
])
def test_rank_rejects_bad_input(bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        ev.rank(bad)


def test_card_errors_are_value_errors_naming_the_argument():
    with pytest.raises(CardError, match="cards: card 'Kx'"):
        ev.rank("AsKx")


def test_showdown_value_rejects_duplicates_and_out_of_range():
    with pytest.raises(ValueError, match="twice"):
        ev.showdown_value([0, 1, 2, 3, 4, 5, 0])
    with pytest.raises(ValueError, match="twice"):
        ev.showdown_value([0, 4, 8, 12, 16, 20, 0])  # a repeated card inside a flush
    with pytest.raises(ValueError, match="out of range"):
        ev.showdown_value([0, 1, 2, 3, 4, 5, -1])
    with pytest.raises(ValueError, match="twice"):
        ev.showdown_value([0, 0])


@pytest.mark.parametrize("bad", [-53, -60, -104, np.int64(-53)])
def test_showdown_value_rejects_every_negative_card(bad):
    # A Python list index below -52 still lands on a real card's key; seven
    # cards with no flush used to be ranked as if ``bad`` were that card.
    with pytest.raises(ValueError, match="out of range"):
        ev.showdown_value([bad, 0, 5, 9, 14, 20, 30])
    with pytest.raises(ValueError, match="out of range"):
        ev.showdown_value([bad, 0, 5, 9, 14, 20])
    with pytest.raises(ValueError, match="no cards"):
        ev.showdown_value([])


@pytest.mark.parametrize("arr, fragment", [
    (np.zeros((3, 4), dtype=np.int64), "shape"),
    (np.zeros(7, dtype=np.int64), "shape"),
    (np.zeros((2, 7)), "integer array"),
    (np.array([[0, 1, 2, 3, 4, 5, 52]]), "row 0 has a card outside"),
    (np.array([[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, -3]]), "row 1 has a card outside"),
    (np.array([[0, 1, 2, 3, 4, 5, 6], [9, 1, 2, 3, 4, 5, 9]]), "row 1 repeats a card"),
    (np.array([[8, 8, 8, 8, 8]]), "row 0 repeats"),
])
def test_rank_batch_rejects_bad_input(arr, fragment):
    with pytest.raises(ValueError, match=fragment):
        ev.rank_batch(arr)


def test_rank_batch_empty_and_lists():
    assert ev.rank_batch(np.zeros((0, 7), dtype=np.int64)).shape == (0,)
    assert ev.rank_batch([list(parse_cards("AsKsQsJsTs"))]).tolist() == [1]


@pytest.mark.parametrize("call, fragment", [
    (lambda: ev.rank_class(0), "1..7462"),
    (lambda: ev.rank_class(7463), "1..7462"),
    (lambda: ev.rank_class(1.0), "1..7462"),
    (lambda: ev.rank_class_name(10), "0..9"),
    (lambda: ev.rank_class_batch(np.array([0])), "1..7462"),
    (lambda: ev.pair_index(3, 3), "twice"),
    (lambda: ev.pair_cards(1326), "0..1325"),
    (lambda: ev.pair_ranks("AsKs"), "3..5"),
])
def test_helpers_reject_bad_input(call, fragment):
    with pytest.raises(ValueError, match=fragment):
        call()


def test_generic_value_of_small_hands_is_the_same_however_asked():
    # one- and two-card values are kept as computed: a list, a tuple and a repeat give one answer, and the
    # order of the cards does not matter
    for text, other in (("As", "Ks"), ("KsKh", "AsQh"), ("Qd2c", "2cQd")):
        cards = parse_cards(text)
        first = ev.generic_value(list(cards))
        assert ev.generic_value(tuple(cards)) == first == ev.generic_value(list(cards))
    assert ev.generic_value(parse_cards("Qd2c")) == ev.generic_value(parse_cards("2cQd"))
    assert ev.generic_value(parse_cards("KsKh")) > ev.generic_value(parse_cards("AsQh"))
    with pytest.raises(ValueError, match="no cards"):
        ev.generic_value(())


def test_prepare_loads_the_seven_card_table_before_any_showdown(monkeypatch):
    from acpcbot.evaluator import ranking
    monkeypatch.setattr(ranking, "_VALUE7", None)
    ranking.prepare(2)  # nothing to load for small hands
    assert ranking._VALUE7 is None
    ranking.prepare(7)
    assert ranking._VALUE7 is not None
