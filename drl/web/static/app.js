// The drl board page: play against an opponent (every step checked by the server) and
// replay PDN files. The server's JSON API is described in drl/web/app.py.
"use strict";

const $ = (id) => document.getElementById(id);
const COLORS = ["black", "white"];

let game = null;        // the server's state of the current game
let selected = null;    // the square of the piece picked (0-based), or null
let view = "black";     // the colour seen at the bottom, in Play and Replay alike: a new
                        // game sets it to the colour you play, Flip turns it round
let analysis = null;    // the opponent's search at this position (az overlay)
let busy = false;       // a request that changes the game is on its way
let mode = "play";
// The server's token, sent with every request that changes something (drl/web/guard.py).
const TOKEN = document.querySelector('meta[name="drl-token"]')?.content || "";
let version = 0;        // counts the states received (body data-version, for scripts)
const replay = { id: null, frames: null, ply: 0 };

function say(text, isError) {
  const box = $("message");
  box.textContent = text || "";
  box.className = isError ? "error" : "";
}

async function api(method, path, body, raw) {
  const init = { method, headers: method === "GET" ? {} : { "X-DRL-Token": TOKEN } };
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

// Layouts put square 1's side (Black's, in every variant) at the top: seen from Black,
// the board is turned round.
const isFlipped = () => view === "black";

function drawBoard(size, layout, position, marks) {
  const board = $("board");
  const flipped = isFlipped();
  board.innerHTML = "";
  board.style.gridTemplateColumns = `repeat(${size}, 1fr)`;
  board.style.gridTemplateRows = `repeat(${size}, 1fr)`;
  board.dataset.position = position;
  board.dataset.view = view;
  $("flip").textContent = `Flip board (seen from ${view})`;
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
  if (marks.arrows && marks.arrows.length) board.appendChild(arrowLayer(size, layout, marks.arrows));
}

const SVG = "http://www.w3.org/2000/svg";

function svgNode(name, attrs) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

// One arrow per move of the opponent's search, from the moving piece to its first
// landing square, with the move's share of the search beside its head.
function arrowLayer(size, layout, arrows) {
  const flipped = isFlipped();
  const centre = (sq) => {
    const [row, col] = layout[sq];
    const r = flipped ? size - 1 - row : row;
    const c = flipped ? size - 1 - col : col;
    return [c + 0.5, r + 0.5];
  };
  const svg = svgNode("svg", { class: "arrows", viewBox: `0 0 ${size} ${size}` });
  const defs = svgNode("defs", {});
  const head = svgNode("marker", {
    id: "arrow-head", viewBox: "0 0 10 10", refX: 7, refY: 5,
    markerWidth: 3, markerHeight: 3, orient: "auto-start-reverse",
  });
  head.appendChild(svgNode("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#1565c0" }));
  defs.appendChild(head);
  svg.appendChild(defs);
  arrows.forEach((a, i) => {
    const [x1, y1] = centre(a.from);
    const [x2, y2] = centre(a.to);
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
    const group = svgNode("g", { class: "arrow", "data-from": a.from, "data-to": a.to });
    group.appendChild(svgNode("line", {
      x1: x1 + ux * 0.25, y1: y1 + uy * 0.25, x2: x2 - ux * 0.2, y2: y2 - uy * 0.2,
      stroke: "#1565c0", "stroke-width": i === 0 ? 0.14 : 0.09, "stroke-opacity": 0.85,
      "marker-end": "url(#arrow-head)",
    }));
    // the label sits on the arrow, a little before its head, so that two arrows to one
    // square keep their labels apart
    const [lx, ly] = [x2 - ux * 0.75, y2 - uy * 0.75];
    const label = svgNode("text", {
      x: lx, y: ly + 0.09, "text-anchor": "middle", "font-size": 0.26, class: "share",
    });
    label.textContent = a.label;
    const w = 0.15 * a.label.length + 0.1;
    const box = svgNode("rect", {
      x: lx - w / 2, y: ly - 0.15, width: w, height: 0.3, rx: 0.06, class: "share-box",
    });
    group.append(box, label);
    svg.appendChild(group);
  });
  return svg;
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
    arrows: analysis && !game.jump && $("overlay").checked
      ? analysis.moves.map((m) => ({ from: m.from, to: m.to, label: Math.round(m.share * 100) + "%" }))
      : [],
  };
  drawBoard(game.size, game.layout, game.position, marks);
  $("board").dataset.fen = game.fen;
  $("status").textContent = statusLine();
  $("status").title = `opponent: ${game.opponent}`;
  const mover = game.turn === "black" ? 0 : 1;
  const start = COLORS[game.moves.length % 2 === 0 ? mover : 1 - mover];
  moveList($("moves"), game.moves, start, game.first);
  const opponentsTurn = !game.over && game.turn !== game.you;
  $("opponent-move").hidden = !opponentsTurn || busy;
  $("undo").disabled = busy;
  $("overlay-label").hidden = !game.analysable;
  $("download").href = `/api/games/${game.id}/pdn`;
  $("download").classList.remove("disabled");
  drawAnalysis();
}

// The moves as numbered full moves, each kept whole on its line: "1. 11-15 23-19".
// ``start``: the colour that made the first move; ``first``: the colour whose moves
// open a move number (a game from a position with the other to move opens "1. ...").
function moveList(box, moves, start, first, onPick) {
  box.innerHTML = "";
  let number = 1;
  let row = null;
  const offset = start === first ? 0 : 1;
  moves.forEach((text, i) => {
    const k = i + offset;
    if (row === null || k % 2 === 0) {
      number = Math.floor(k / 2) + 1;
      row = document.createElement("span");
      row.className = "fullmove";
      const num = document.createElement("span");
      num.className = "num";
      num.textContent = k % 2 === 0 ? `${number}.` : `${number}. ...`;
      row.appendChild(num);
      box.append(row, " ");
    }
    const span = document.createElement("span");
    span.className = "move";
    span.dataset.ply = String(i + 1);
    span.textContent = text;
    if (onPick) span.addEventListener("click", () => onPick(i + 1));
    row.append(" ", span);
  });
}

// A short name of an agent spec for the status line (the whole spec is its tooltip):
// a checkpoint is named by its run folder, "az:sims=64 (long-give_and_take)".
function shortName(spec) {
  if (spec.length <= 28) return spec;
  const colon = spec.indexOf(":");
  if (colon < 0) return spec.slice(0, 27) + "…";
  const kind = spec.slice(0, colon);
  const params = spec.slice(colon + 1).split(",");
  const ckpt = params.find((p) => p.startsWith("ckpt="));
  const rest = params.filter((p) => !p.startsWith("ckpt=") && p.length <= 16).slice(0, 2);
  let name = kind + (rest.length ? ":" + rest.join(",") : "");
  if (ckpt) {
    const parts = ckpt.slice(5).split(/[\\/]/).filter((p) => p && p !== ".");
    let file = parts.pop() || "";
    if (/\.pt$/.test(file) && parts.length) {
      file = parts.pop();
      if (file === "checkpoints" && parts.length) file = parts.pop();
    }
    name += ` (${file.length > 24 ? file.slice(0, 23) + "…" : file})`;
  }
  return name;
}

function statusLine() {
  const role = (i) => (game.roles[i] ? ` (${game.roles[i]})` : "");
  const me = COLORS.indexOf(game.you);
  const them = shortName(game.opponent);
  const who = `You: ${game.you}${role(me)} against ${them}, ${COLORS[1 - me]}${role(1 - me)}. `;
  if (game.over) return who + "Game over: " + game.result;
  if (game.jump) return who + `Capture goes on: jump again with the piece on ${game.layout[game.jump.at][2]}.`;
  return who + (game.turn === game.you ? "Your move." : `${them} to move.`);
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
      `${shortName(game.opponent)} is thinking ${((Date.now() - started) / 1000).toFixed(1)} s`;
  }, 100);
  $("thinking-text").textContent = `${shortName(game.opponent)} is thinking`;
  try {
    if (await change("POST", `/api/games/${game.id}/opponent`)) {
      if (!game.over) say(`${shortName(game.opponent)} played ${game.moves[game.moves.length - 1]}`);
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
    view = state.you;
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
  for (const span of $("replay-moves").querySelectorAll(".move")) {
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
  moveList($("replay-moves"), f.moves, f.start, f.first, goTo);
  replay.ply = 0;
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
    if (game) drawGame();
    else $("board").innerHTML = "";
  } else if (replay.frames) {
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
    view = view === "black" ? "white" : "black";
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
    if (game) {
      const headers = { "X-DRL-Token": TOKEN };
      fetch(`/api/games/${game.id}`, { method: "DELETE", keepalive: true, headers });
    }
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
    view = d.color === "white" ? "white" : "black";
    if (options.folder) {
      $("folder-box").hidden = false;
      $("folder-name").textContent = options.folder;
      fill($("folder-files"), (await api("GET", "/api/files")).files);
      for (const option of $("folder-files").children) option.textContent = option.value;
    }
  } catch (err) {
    say(err.message, true);
    setBusy(false);
    document.body.dataset.ready = "1";
    return;
  }
  setBusy(false);
  // the start position on load: a game with the defaults (the server's options)
  await newGame();
  document.body.dataset.ready = "1";
}

start();
