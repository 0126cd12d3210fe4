"""The board page in headless Chromium (Debian's ``chromium`` and ``chromium-driver``,
driven by selenium), against a server on 127.0.0.1: whole games played by clicks, a
multi-jump hop by hop, refused clicks and requests shown on the page, undo, the PDN read
back, and a recorded game stepped through. Skipped when either is absent."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import urllib.request
from pathlib import Path

import pytest

from drl.agents import Agent, make
from drl.analysis.report import CHROMIUM, CHROMIUM_FLAGS
from drl.rules import Board, Move, read_games, replay

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytest.importorskip("flask", reason="Flask is not installed (pip install -e '.[web]')")
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not Path(CHROMIUM).exists() or not Path(DRIVER).exists():
    pytest.skip(
        f"no {CHROMIUM} or chromedriver (Debian packages chromium, chromium-driver)",
        allow_module_level=True,
    )

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from drl.web.app import create_app  # noqa: E402
from drl.web.replay import ReplayFolder  # noqa: E402
from drl.web.store import GameStore  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
GATE = threading.Event()
"""The opponent ``random:seed=99`` moves only once this is set (see :func:`_build`)."""


class _Gated(Agent):
    """A random opponent that waits for :data:`GATE` before each move."""

    def __init__(self) -> None:
        self.inner = make("random:seed=99")
        self.name = self.inner.name

    def select_move(self, board: Board) -> Move:
        GATE.wait(15)
        return self.inner.select_move(board)


def _build(spec: str) -> Agent:
    return _Gated() if spec == "random:seed=99" else make(spec)


@pytest.fixture(scope="module")
def server():
    from werkzeug.serving import make_server

    store = GameStore(build_agent=_build)
    httpd = make_server("127.0.0.1", 0, create_app(store, ReplayFolder(DATA)), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.socket.getsockname()[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        store.close_all()


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="drl-chromium-")
    opts = Options()
    opts.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,1000"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class Page:
    """The board page in the browser, read and clicked as a player would."""

    def __init__(self, browser, url: str) -> None:
        self.b = browser
        browser.get(url)
        # the page starts a game with the server's defaults (the first one may compile)
        self.wait(lambda: self.body("ready") == "1", 120)

    def wait(self, until, seconds: float = 15.0):
        return WebDriverWait(self.b, seconds, poll_frequency=0.02).until(lambda _: until())

    def body(self, key: str) -> str | None:
        return self.b.find_element(By.TAG_NAME, "body").get_attribute(f"data-{key}")

    def text(self, element_id: str) -> str:
        return self.b.find_element(By.ID, element_id).text

    def settled(self, before: str | None) -> None:
        """Wait until a state newer than ``before`` came and nothing is on its way."""
        self.wait(lambda: self.body("version") != before and self.body("busy") == "0")

    def new_game(self, idle: bool = True, **form: str) -> None:
        """Fill in the form and start a game; wait until the page is idle again (or, with
        ``idle`` False, only until the new game is shown)."""
        for key in ("variant", "opponent", "fen", "move-time"):
            field = self.b.find_element(By.ID, key)
            field.clear()
            field.send_keys(
                form.get(key, {"variant": "english", "opponent": "random"}.get(key, ""))
            )
        for key, default in (("color", "black"), ("role", "")):
            Select(self.b.find_element(By.ID, key)).select_by_value(form.get(key, default))
        before = self.body("version")
        self.b.find_element(By.ID, "new").click()
        self.wait(
            lambda: (
                (self.body("busy") == "0" or not idle)
                and (self.body("version") != before or self.error())
            )
        )

    def square(self, sq: int):
        return self.b.find_element(By.CSS_SELECTOR, f'#board [data-sq="{sq}"]')

    def click(self, sq: int) -> None:
        """Click a square and wait until what it sent (a step, then the opponent's
        move) has been answered: a request marks the page busy before the click ends."""
        self.square(sq).click()
        self.wait(lambda: self.body("busy") == "0")

    def error(self) -> str:
        box = self.b.find_element(By.ID, "message")
        return box.text if "error" in (box.get_attribute("class") or "") else ""

    def marked(self, kind: str) -> list[int]:
        squares = self.b.execute_script(
            "return [...document.querySelectorAll('#board .square.' + arguments[0])]"
            ".map((c) => Number(c.dataset.sq));",
            kind,
        )
        return sorted(squares)

    def moves(self) -> list[str]:
        return [m.text for m in self.b.find_elements(By.CSS_SELECTOR, "#moves .move")]

    def shot(self, name: str) -> None:
        """Save a screenshot to $DRL_SCREENSHOTS/name.png when that variable is set."""
        folder = os.environ.get("DRL_SCREENSHOTS")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.b.save_screenshot(str(Path(folder) / f"{name}.png"))

    def fits(self) -> None:
        """Nothing is cut off at 1,280 px and no button is blank."""
        width = self.b.execute_script("return document.documentElement.scrollWidth")
        assert width <= 1280, width
        blank = self.b.execute_script(
            "return [...document.querySelectorAll('button, a.button')]"
            ".filter((b) => b.offsetParent !== null && !b.innerText.trim()).map((b) => b.id)"
        )
        assert not blank, blank


def _play_out(page: Page, variant: str, limit: int = 60) -> list[str]:
    """Play the player's side by clicks, choosing moves with alpha-beta, to the end."""
    chooser = make("alphabeta:depth=4")
    for _ in range(limit):
        if "Game over" in page.text("status"):
            return page.moves()
        assert "Your move" in page.text("status"), page.text("status")
        board = Board(variant, fen=page.b.find_element(By.ID, "board").get_attribute("data-fen"))
        move = chooser.select_move(board)
        assert move.start in page.marked("movable")
        page.click(move.start)
        for hop in move.path[1:]:
            assert hop in page.marked("target")
            page.click(hop)
            assert not page.error(), page.error()
    raise AssertionError(f"no end after {limit} moves: {page.moves()}")


def _pdn_moves(page: Page) -> list[str]:
    href = page.b.find_element(By.ID, "download").get_attribute("href")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    text = opener.open(href, timeout=10).read().decode()
    (game,) = read_games(text)
    return [str(m) for m in replay(game).move_stack]


def test_a_whole_english_game_against_random_with_a_multi_jump(server, browser):
    page = Page(browser, server)
    page.new_game(variant="english", opponent="random:seed=1", fen="B:W22,25,26:B6,7,9,10")
    moves = _play_out(page, "english")
    assert "14x23x30" in moves  # played hop by hop: 14, then 23, then 30
    assert page.text("status").endswith("Game over: 1-0: Black wins (no pieces)")
    assert _pdn_moves(page) == moves


def test_a_whole_give_and_take_game_as_the_giver(server, browser):
    page = Page(browser, server)
    page.new_game(
        variant="give_and_take",
        opponent="random:seed=1",
        color="black",
        role="giver",
        fen="W:W22,25,26,29:B6,7,9,10",
    )
    assert "You: black (giver) against random:seed=1, white (taker)" in page.text("status")
    moves = _play_out(page, "give_and_take:taker=white")
    assert len(moves) >= 2 and "Game over" in page.text("status")
    assert _pdn_moves(page) == moves


def test_hops_an_illegal_click_and_undo(server, browser):
    page = Page(browser, server)
    page.new_game(variant="english", opponent="random:seed=2", fen="B:W18,26,32:B14,9")
    assert page.marked("movable") == [13]  # capturing is compulsory: only 14 may move
    page.click(8)  # 9 can be picked, but has no legal step
    assert "no legal step from 9" in page.text("message")
    page.click(12)  # 9-13: refused by the server
    assert "9-13 is not a legal step here: capturing is compulsory" in page.error()
    page.click(13)
    page.click(22)  # first hop
    assert "Capture goes on" in page.text("status") and page.marked("captured") == [17]
    page.click(27)  # not the next hop
    assert "the capture goes on from 23; legal steps: 23x30" in page.error()
    page.click(29)
    assert page.moves()[0] == "14x23x30" and len(page.moves()) == 2  # random answered
    before = page.body("version")
    browser.find_element(By.ID, "undo").click()
    page.settled(before)
    assert page.moves() == [] and page.marked("movable") == [13]


def test_two_tabs_play_two_games_and_a_thinking_opponent_is_shown(server, browser):
    first = Page(browser, server)
    first.new_game(variant="english", opponent="random:seed=1")
    tab_one = browser.current_window_handle
    browser.switch_to.new_window("tab")
    second = Page(browser, server)
    GATE.clear()
    second.new_game(False, variant="give_and_take", opponent="random:seed=99", color="white")
    try:
        second.wait(lambda: browser.find_element(By.ID, "thinking").is_displayed())
        assert "random:seed=99 is thinking" in second.text("thinking")
        browser.switch_to.window(tab_one)  # the other game goes on meanwhile
        first.click(10)
        first.click(14)
        assert first.moves()[0] == "11-15" and len(first.moves()) == 2
    finally:
        GATE.set()
    browser.switch_to.window(browser.window_handles[-1])
    second.wait(lambda: len(second.moves()) == 1)
    assert not browser.find_element(By.ID, "thinking").is_displayed()
    assert "You: white (giver)" in second.text("status")
    browser.close()
    browser.switch_to.window(tab_one)
    assert len(first.moves()) == 2


def test_refused_input_is_shown_and_the_game_stays(server, browser, tmp_path):
    page = Page(browser, server)
    page.new_game(variant="english", opponent="random", fen="B:W18:B14")
    page.click(13)
    page.click(22)
    assert "Game over" in page.text("status")
    shown = page.text("status")
    page.click(22)
    page.click(26)  # a move in a finished game
    assert "the game is over (1-0: Black wins (no pieces))" in page.error()
    corrupt = tmp_path / "ckpt-00000001.pt"
    corrupt.write_bytes(b"not a checkpoint")
    for form, text in [
        ({"variant": "english:flying=yes"}, "unknown flag 'flying'"),
        ({"opponent": "alphabeta:depth=two"}, "'two' is not a valid int"),
        ({"opponent": "az:ckpt=/nonexistent"}, "ckpt=/nonexistent is not a drl checkpoint"),
        ({"opponent": f"az:ckpt={corrupt}"}, f"opponent 'az:ckpt={corrupt}'"),
    ]:
        page.new_game(**form)
        assert text in page.error()
        assert page.text("status") == shown  # the game shown is still there
    browser.find_element(By.ID, "tab-replay").click()
    broken = tmp_path / "broken.pdn"
    broken.write_text('[Event "x"]\n1. 11-15 {never closed\n')
    browser.find_element(By.ID, "pdn-file").send_keys(str(broken))
    page.wait(lambda: "not PDN that drl can read" in page.error())


def test_a_recorded_game_steps_forward_and_back(server, browser):
    page = Page(browser, server)
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "pdn-file").send_keys(str(DATA / "two_games.pdn"))
    page.wait(lambda: page.text("plies") == "43")
    board = browser.find_element(By.ID, "board")
    frames = [p for p in _positions(DATA / "two_games.pdn", 1)]

    def shown() -> str:
        return board.get_attribute("data-position") if board.is_displayed() else ""

    Select(browser.find_element(By.ID, "game-select")).select_by_value("1")
    page.wait(lambda: page.text("plies") == "46")
    board = browser.find_element(By.ID, "board")
    assert shown() == frames[0] and page.text("ply") == "0"
    browser.find_element(By.ID, "forward").click()
    board = browser.find_element(By.ID, "board")
    assert page.text("ply") == "1" and shown() == frames[1]
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert page.text("ply") == "3" and shown() == frames[3]
    body.send_keys(Keys.ARROW_LEFT)
    assert page.text("ply") == "2" and shown() == frames[2]
    browser.find_element(By.ID, "last").click()
    assert page.text("ply") == "46" and shown() == frames[46]
    body.send_keys(Keys.HOME)
    assert page.text("ply") == "0" and shown() == frames[0]
    browser.find_element(By.ID, "back").click()  # stays at the start
    assert page.text("ply") == "0"
    assert "give_and_take:taker=white" in page.text("replay-info")


def _positions(path: Path, index: int) -> list[str]:
    """Every position of game ``index`` of a PDN file, as the page writes them."""
    from drl.web.board import position_text

    game = list(read_games(path))[index]
    board = replay(game)
    walk = board.root()
    out = [position_text(walk)]
    for move in board.move_stack:
        walk.push(move)
        out.append(position_text(walk))
    return out


def test_the_board_shows_the_start_position_on_load(server, browser):
    page = Page(browser, server)
    board = browser.find_element(By.ID, "board")
    start = Board("english")
    assert board.get_attribute("data-fen") == start.fen()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .piece")) == 24
    assert "Your move" in page.text("status")
    assert page.marked("movable") == [8, 9, 10, 11]  # 9..12 may move
    page.fits()
    page.shot("board-on-load")


def test_one_orientation_for_play_and_replay(server, browser):
    page = Page(browser, server)
    board = browser.find_element(By.ID, "board")

    def top_left() -> str:
        """The name of the top row's first playable square as shown."""
        return browser.execute_script(
            "const cells = [...document.querySelectorAll('#board .square')];"
            "const first = cells.find((c) => c.dataset.name);"
            "return first.dataset.name;"
        )

    assert board.get_attribute("data-view") == "black"  # the colour you play: at the bottom
    shown_in_play = top_left()
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "pdn-file").send_keys(str(DATA / "two_games.pdn"))
    page.wait(lambda: page.text("plies") == "43")
    board = browser.find_element(By.ID, "board")
    assert board.get_attribute("data-view") == "black" and top_left() == shown_in_play
    browser.find_element(By.ID, "flip").click()
    assert browser.find_element(By.ID, "board").get_attribute("data-view") == "white"
    browser.find_element(By.ID, "tab-play").click()
    assert browser.find_element(By.ID, "board").get_attribute("data-view") == "white"
    assert top_left() != shown_in_play
    page.new_game(variant="english", opponent="random:seed=1", color="white")
    assert browser.find_element(By.ID, "board").get_attribute("data-view") == "white"


def test_the_replay_list_keeps_moves_whole_and_numbers_them(server, browser):
    page = Page(browser, server)
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "pdn-file").send_keys(str(DATA / "two_games.pdn"))
    page.wait(lambda: page.text("plies") == "43")
    rows = browser.find_elements(By.CSS_SELECTOR, "#replay-moves .fullmove")
    assert rows[0].text.split()[0] == "1." and rows[1].text.split()[0] == "2."
    assert len(rows) == 22  # 43 plies
    expected = [str(m) for m in replay(next(iter(read_games(DATA / "two_games.pdn")))).move_stack]
    moves = browser.find_elements(By.CSS_SELECTOR, "#replay-moves .move")
    assert [m.text for m in moves] == expected
    # each full move is on one line: no move, and no number and its moves, broken apart
    lines = browser.execute_script(
        "return [...document.querySelectorAll('#replay-moves .fullmove')]"
        ".map((r) => r.getClientRects().length === 1 && r.getBoundingClientRect().height)"
    )
    assert all(lines) and max(lines) < 2 * min(lines), lines
    moves[4].click()
    assert page.text("ply") == "5"
    page.fits()
    page.shot("replay")


def test_a_game_from_a_position_with_the_second_player_to_move_numbers_its_moves(server, browser):
    page = Page(browser, server)
    page.new_game(variant="english", opponent="random:seed=1", color="white", fen="W:W22:B9,10")
    page.click(21)
    page.click(17)
    first = browser.find_elements(By.CSS_SELECTOR, "#moves .fullmove")[0]
    assert first.text.split()[:3] == ["1.", "...", "22-18"]


def test_the_opponents_search_is_one_arrow_per_move(server, browser, tmp_path):
    from tests.tiny_checkpoints import tiny_resnet_checkpoint

    ckpt = tiny_resnet_checkpoint(tmp_path / "a-run-with-a-long-name-for-the-status-line")
    page = Page(browser, server)
    page.new_game(variant="english", opponent=f"az:ckpt={ckpt},sims=32,device=cpu")
    status = page.text("status")
    assert "against az:sims=32,device=cpu (a-run-with-a-long-name-…), white" in status
    assert str(ckpt) not in status
    browser.find_element(By.ID, "overlay").click()
    page.wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg.arrows g.arrow"))
    arrows = [
        (int(a.get_attribute("data-from")), int(a.get_attribute("data-to")))
        for a in browser.find_elements(By.CSS_SELECTOR, "#board svg.arrows g.arrow")
    ]
    shown = browser.find_element(By.ID, "analysis").text.splitlines()[1:]
    assert len(arrows) == len(set(arrows)) == len(shown) == 5, (arrows, shown)
    # Black's 7 first moves go to 4 squares: of any 5, two share their landing square,
    # and each still has its own arrow from its own piece.
    targets = [to for _, to in arrows]
    assert len(set(targets)) < len(targets)
    assert {a for a, _ in arrows} <= {8, 9, 10, 11}  # from Black's front men, 9..12
    page.fits()
    page.shot("overlay")
