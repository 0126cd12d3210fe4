// The drl board page: play against an opponent (every step checked by the server) and
// replay PDN files. The server's JSON API is described in drl/web/app.py.
"use strict";

const $ = (id) => document.getElementById(id);
const COLORS = ["black", "white"];

let game = null;        // the server's state of the current game
let selected = null;    // the square of the piece picked (0-based), or null
let flipped = false;    // true: the board is turned round
let userFlip = false;   // the Flip button's toggle, kept across games
let analysis = null;    // the opponent's search at this position (az overlay)
let busy = false;       // a request that changes the game is on its way
let mode = "play";
let version = 0;        // counts the states received (body data-version, for scripts)
const replay = { id: null, frames: null, ply: 0 };

function say(text, isError) {
  const box = $("message");
  box.textContent = text || "";
  box.className = isError ? "error" : "";
}

async function api(method, path, body, raw) {
  const init = { method, headers: {} };
  if (raw !== undefined) {
    init.body = raw;
    init.headers["Content-Type"] = "application/octet-stream";
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new Error("the server did not answer (" + err + ")");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    throw new Error("the server answered " + response.status + " without JSON");
  }
  if (!response.ok) throw new Error(data && data.error ? data.error : "error " + response.status);
  return data;
}

// ------------------------------------------------------------------ drawing

function pieceOf(ch) {
  if (!ch || ch === ".") return null;
  return { color: ch.toLowerCase() === "b" ? "black" : "white", king: ch === ch.toUpperCase() };
}

function drawBoard(size, layout, position, marks) {
  const board = $("board");
  board.innerHTML = "";
  board.style.gridTemplateColumns = `repeat(${size}, 1fr)`;
  board.style.gridTemplateRows = `repeat(${size}, 1fr)`;
  board.dataset.position = position;
  const at = new Map();
  layout.forEach(([row, col], sq) => at.set(row * size + col, sq));
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const row = flipped ? size - 1 - r : r;
      const col = flipped ? size - 1 - c : c;
      const cell = document.createElement("div");
      cell.className = "square";
      cell.style.gridRow = String(r + 1);
      cell.style.gridColumn = String(c + 1);
      const sq = at.get(row * size + col);
      if (sq !== undefined) decorate(cell, sq, layout[sq][2], position[sq], marks);
      board.appendChild(cell);
    }
  }
}

function decorate(cell, sq, name, ch, marks) {
  cell.classList.add("dark");
  cell.dataset.sq = String(sq);
  cell.dataset.name = name;
  for (const key of ["movable", "targets", "last", "captured"]) {
    if (marks[key] && marks[key].has(sq)) cell.classList.add(key === "targets" ? "target" : key);
  }
  if (marks.selected === sq) cell.classList.add("selected");
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = name;
  cell.appendChild(label);
  const piece = pieceOf(ch);
  if (piece) {
    const disc = document.createElement("div");
    disc.className = `piece ${piece.color}${piece.king ? " king" : ""}`;
    cell.appendChild(disc);
  }
  if (marks.shares && marks.shares.has(sq)) {
    const badge = document.createElement("span");
    badge.className = "share";
    badge.textContent = marks.shares.get(sq);
    cell.appendChild(badge);
  }
  cell.addEventListener("click", () => onSquare(sq));
}

function drawGame() {
  if (!game) return;
  const steps = game.steps;
  const from = selected === null ? steps : steps.filter(([a]) => a === selected);
  const marks = {
    movable: new Set(selected === null ? steps.map(([a]) => a) : []),
    targets: new Set(selected === null ? [] : from.map(([, b]) => b)),
    selected,
    last: new Set(game.jump ? [] : game.last),
    captured: new Set(game.jump ? game.jump.captured : []),
    shares: new Map(),
  };
  if (analysis && !game.jump) {
    for (const m of analysis.moves) {
      if (!marks.shares.has(m.to)) marks.shares.set(m.to, Math.round(m.share * 100) + "%");
    }
  }
  drawBoard(game.size, game.layout, game.position, marks);
  $("board").dataset.fen = game.fen;
  $("status").textContent = statusLine();
  const list = $("moves");
  list.innerHTML = "";
  for (let i = 0; i < game.moves.length; i += 2) {
    const item = document.createElement("li");
    item.textContent = game.moves.slice(i, i + 2).join("  ");
    list.appendChild(item);
  }
  const opponentsTurn = !game.over && game.turn !== game.you;
  $("opponent-move").hidden = !opponentsTurn || busy;
  $("undo").disabled = busy;
  $("overlay-label").hidden = !game.analysable;
  $("download").href = `/api/games/${game.id}/pdn`;
  $("download").classList.remove("disabled");
  drawAnalysis();
}

function statusLine() {
  const role = (i) => (game.roles[i] ? ` (${game.roles[i]})` : "");
  const me = COLORS.indexOf(game.you);
  const who = `You: ${game.you}${role(me)} against ${game.opponent}, ${COLORS[1 - me]}${role(1 - me)}. `;
  if (game.over) return who + "Game over: " + game.result;
  if (game.jump) return who + `Capture goes on: jump again with the piece on ${game.layout[game.jump.at][2]}.`;
  return who + (game.turn === game.you ? "Your move." : `${game.opponent} to move.`);
}

function drawAnalysis() {
  const box = $("analysis");
  if (!analysis || !$("overlay").checked) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const lines = analysis.moves.map(
    (m) => `${m.move || m.step + " ..."}  ${(m.share * 100).toFixed(1)}%`);
  box.textContent = `Value for you: ${analysis.value >= 0 ? "+" : ""}${analysis.value.toFixed(3)}` +
    ` (${analysis.simulations} simulations)\n` + lines.join("\n");
  box.style.whiteSpace = "pre";
}

// ------------------------------------------------------------------ playing

function setGame(state) {
  game = state;
  document.body.dataset.version = String(++version);
  selected = game.jump ? game.jump.at : null;
  analysis = null;
  drawGame();
}

function setBusy(value) {
  busy = value;
  document.body.dataset.busy = value ? "1" : "0";
}

async function change(method, path, body) {
  setBusy(true);
  try {
    setGame(await api(method, path, body));
    return true;
  } catch (err) {
    say(err.message, true);
    selected = game && game.jump ? game.jump.at : null;
    return false;
  } finally {
    setBusy(false);
    drawGame();
  }
}

async function afterChange() {
  if (!game || game.over) return;
  if (game.turn !== game.you) {
    await opponentMoves();
  } else if ($("overlay").checked && game.analysable && !game.jump) {
    await loadAnalysis();
  }
}

async function opponentMoves() {
  const started = Date.now();
  $("thinking").hidden = false;
  const tick = setInterval(() => {
    $("thinking-text").textContent =
      `${game.opponent} is thinking ${((Date.now() - started) / 1000).toFixed(1)} s`;
  }, 100);
  $("thinking-text").textContent = `${game.opponent} is thinking`;
  try {
    if (await change("POST", `/api/games/${game.id}/opponent`)) {
      if (!game.over) say(`${game.opponent} played ${game.moves[game.moves.length - 1]}`);
      await afterChange();
    }
  } finally {
    clearInterval(tick);
    $("thinking").hidden = true;
  }
}

async function loadAnalysis() {
  try {
    analysis = await api("GET", `/api/games/${game.id}/analysis`);
  } catch (err) {
    analysis = null;
    say(err.message, true);
  }
  drawGame();
}

function onSquare(sq) {
  if (mode !== "play" || !game) return;
  if (busy) {
    say("wait: the last request is still on its way");
    return;
  }
  const me = game.you[0];
  const mine = game.position[sq].toLowerCase() === me;
  if (game.jump) {
    if (sq !== game.jump.at) step(game.jump.at, sq);
    return;
  }
  if (mine && selected !== sq) {
    selected = sq;
    say(game.steps.some(([a]) => a === sq) ? "" : `no legal step from ${game.layout[sq][2]}`);
    drawGame();
    return;
  }
  if (selected === null) {
    say("click one of your pieces first");
    return;
  }
  step(selected, sq);
}

async function step(from, to) {
  say("");
  if (await change("POST", `/api/games/${game.id}/step`, { from, to })) await afterChange();
}

async function newGame(event) {
  if (event) event.preventDefault();
  const body = {
    variant: $("variant").value,
    opponent: $("opponent").value,
    color: $("color").value,
    role: $("role").value || null,
    fen: $("fen").value || null,
    move_time: $("move-time").value || null,
    replace: game ? game.id : null,
  };
  say("starting the game ...");
  setBusy(true);
  try {
    const state = await api("POST", "/api/games", body);
    flipped = (state.you === "black") !== userFlip;
    say("");
    setGame(state);
  } catch (err) {
    say(err.message, true);
    return;
  } finally {
    setBusy(false);
    if (game) drawGame();
  }
  await afterChange();
}

async function undo() {
  say("");
  if (game && (await change("POST", `/api/games/${game.id}/undo`))) await afterChange();
}

// ------------------------------------------------------------------ replay

function drawReplay() {
  const f = replay.frames;
  if (!f) return;
  const path = replay.ply > 0 ? f.paths[replay.ply - 1] : [];
  drawBoard(f.size, f.layout, f.positions[replay.ply], { last: new Set(path) });
  $("ply").textContent = String(replay.ply);
  $("plies").textContent = String(f.moves.length);
  for (const span of $("replay-moves").children) {
    span.classList.toggle("current", Number(span.dataset.ply) === replay.ply);
  }
}

function goTo(ply) {
  if (!replay.frames) return;
  replay.ply = Math.max(0, Math.min(ply, replay.frames.moves.length));
  drawReplay();
}

async function opened(summary) {
  replay.id = summary.id;
  const select = $("game-select");
  select.innerHTML = "";
  for (const g of summary.games) {
    const option = document.createElement("option");
    option.value = String(g.index);
    option.textContent = `${g.index + 1}. ${g.players} ${g.outcome} (${g.plies} plies)`;
    select.appendChild(option);
  }
  say(`${summary.source}: ${summary.games.length} game(s)`);
  await loadReplayGame(0);
}

async function loadReplayGame(index) {
  $("replay-error").textContent = "";
  try {
    replay.frames = await api("GET", `/api/replays/${replay.id}/${index}`);
  } catch (err) {
    replay.frames = null;
    $("replay-error").textContent = err.message;
    say(err.message, true);
    return;
  }
  const f = replay.frames;
  $("replay-error").textContent = f.error || "";
  $("replay-info").textContent = `${f.variant}` + (f.tags.Event ? ` · ${f.tags.Event}` : "");
  const moves = $("replay-moves");
  moves.innerHTML = "";
  f.moves.forEach((text, i) => {
    const span = document.createElement("span");
    span.dataset.ply = String(i + 1);
    span.textContent = text;
    span.addEventListener("click", () => goTo(i + 1));
    moves.appendChild(span);
  });
  replay.ply = 0;
  flipped = userFlip;
  drawReplay();
}

async function upload() {
  const file = $("pdn-file").files[0];
  if (!file) return;
  try {
    const data = await file.arrayBuffer();
    await opened(await api("POST", `/api/replays?name=${encodeURIComponent(file.name)}`, undefined, data));
  } catch (err) {
    say(err.message, true);
  }
}

async function openPath() {
  try {
    await opened(await api("POST", "/api/replays/open", { path: $("folder-files").value }));
  } catch (err) {
    say(err.message, true);
  }
}

function onKey(event) {
  if (mode !== "replay" || ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
  const f = replay.frames;
  if (!f) return;
  const moves = { ArrowRight: 1, ArrowLeft: -1 };
  if (event.key in moves) goTo(replay.ply + moves[event.key]);
  else if (event.key === "Home") goTo(0);
  else if (event.key === "End") goTo(f.moves.length);
  else return;
  event.preventDefault();
}

// ------------------------------------------------------------------ set-up

function showMode(name) {
  mode = name;
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replay").classList.toggle("active", name === "replay");
  $("play-panel").hidden = name !== "play";
  $("replay-panel").hidden = name !== "replay";
  $("status").hidden = name !== "play";
  say("");
  if (name === "play") {
    flipped = game ? (game.you === "black") !== userFlip : userFlip;
    if (game) drawGame();
    else $("board").innerHTML = "";
  } else if (replay.frames) {
    flipped = userFlip;
    drawReplay();
  } else {
    $("board").innerHTML = "";
  }
}

function fill(list, values) {
  for (const value of values) {
    const option = document.createElement("option");
    option.value = value;
    list.appendChild(option);
  }
}

async function start() {
  $("new-game").addEventListener("submit", newGame);
  $("undo").addEventListener("click", undo);
  $("flip").addEventListener("click", () => {
    userFlip = !userFlip;
    flipped = !flipped;
    if (mode === "play") drawGame();
    else drawReplay();
  });
  $("opponent-move").addEventListener("click", () => !busy && game && opponentMoves());
  $("overlay").addEventListener("change", () => {
    if ($("overlay").checked && game && !game.over && game.turn === game.you) loadAnalysis();
    else drawGame();
  });
  $("tab-play").addEventListener("click", () => showMode("play"));
  $("tab-replay").addEventListener("click", () => showMode("replay"));
  $("pdn-file").addEventListener("change", upload);
  $("open-path").addEventListener("click", openPath);
  $("game-select").addEventListener("change", () => loadReplayGame(Number($("game-select").value)));
  $("first").addEventListener("click", () => goTo(0));
  $("back").addEventListener("click", () => goTo(replay.ply - 1));
  $("forward").addEventListener("click", () => goTo(replay.ply + 1));
  $("last").addEventListener("click", () => replay.frames && goTo(replay.frames.moves.length));
  document.addEventListener("keydown", onKey);
  window.addEventListener("beforeunload", () => {
    if (game) fetch(`/api/games/${game.id}`, { method: "DELETE", keepalive: true });
  });
  try {
    const options = await api("GET", "/api/options");
    fill($("presets"), options.presets);
    fill($("agents"), options.agents);
    const d = options.defaults;
    $("variant").value = d.variant;
    $("opponent").value = d.opponent;
    $("color").value = d.color;
    $("role").value = d.role || "";
    $("move-time").value = d.move_time || "";
    if (options.folder) {
      $("folder-box").hidden = false;
      $("folder-name").textContent = options.folder;
      fill($("folder-files"), (await api("GET", "/api/files")).files);
      for (const option of $("folder-files").children) option.textContent = option.value;
    }
  } catch (err) {
    say(err.message, true);
  }
  setBusy(false);
  document.body.dataset.ready = "1";
}

start();
