"""serve_load.py — load and fault clients for `npusim serve` on 127.0.0.1
(tests/cli/t_serve_load.sh runs each scenario bounded in count and time;
docs/testing.md records the figures of larger runs).

Every client speaks raw HTTP/1.1 over a socket, so what the server answers
(or fails to: a reset, an empty close) is seen as it is. A scenario prints
one line of figures and exits 1 when the server broke its promise.

  python3 serve_load.py load PORT CONCURRENCY REQUESTS      every request answered 200; p50/p99
  python3 serve_load.py slowloris PORT SLOW PROBES SECONDS  probes answered while SLOW clients trickle heads
  python3 serve_load.py full PORT HOLD                      HOLD connections held mid-body: the next is 503 + Retry-After
  python3 serve_load.py heavy PORT HEAVY GETS MAX_P99_MS    GETs stay fast while HEAVY sweeps run
  python3 serve_load.py queue PORT N                        N sweeps on one worker: 200, 503 or 504, none lost
  python3 serve_load.py heads PORT                          malformed heads answered JSON (400 413 414 431 505)
  python3 serve_load.py inflight PORT N                     N sweeps in flight (start, then the caller signals)
"""
import json
import socket
import sys
import threading
import time

HOST = '127.0.0.1'


def request(port, method='GET', path='/api/strategies', body=None, headers=None, timeout=30):
    """One request on its own connection: (status, headers dict, body bytes),
    or (0, {}, reason) when the connection broke without an answer."""
    b = json.dumps(body).encode() if body is not None else b''
    h = {'Host': f'{HOST}:{port}'}
    if body is not None:
        h['Content-Type'] = 'application/json'
        h['Content-Length'] = str(len(b))
    h.update(headers or {})
    head = f'{method} {path} HTTP/1.1\r\n' + ''.join(f'{k}: {v}\r\n' for k, v in h.items()) + '\r\n'
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(head.encode() + b)
            return read_answer(s)
    except OSError as e:
        return 0, {}, str(e).encode()


def read_answer(s):
    data = b''
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    if not data.startswith(b'HTTP/1.'):
        return 0, {}, b'no answer'
    head, _, body = data.partition(b'\r\n\r\n')
    lines = head.decode('latin-1').split('\r\n')
    status = int(lines[0].split()[1])
    hdrs = {k.strip().lower(): v.strip() for k, v in (l.split(':', 1) for l in lines[1:] if ':' in l)}
    return status, hdrs, body


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float('nan')


def run_threads(n, fn):
    ts = [threading.Thread(target=fn, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def load(port, conc, total):
    """conc clients, total requests (GETs and /api/op), each on a new connection."""
    lat, bad, lock = [], [], threading.Lock()
    op = {'op': 'gemm', 'm': 256, 'n': 256, 'k': 256, 'chip': 'h100'}

    def client(i):
        for k in range(i, total, conc):
            t = time.monotonic()
            st, _, body = request(port, 'POST', '/api/op', op) if k % 2 else request(port)
            with lock:
                lat.append(time.monotonic() - t)
                if st != 200:
                    bad.append((st, body[:80]))
    run_threads(conc, client)
    print(f'load: concurrency {conc}, {total} requests, {total - len(bad)} answered 200, '
          f'p50 {pct(lat, 50) * 1e3:.1f} ms, p99 {pct(lat, 99) * 1e3:.1f} ms; lost {len(bad)}'
          + (f' e.g. {bad[0]}' if bad else ''))
    return not bad


def slowloris(port, slow, probes, seconds):
    """slow connections send a header line a byte at a time; probes ask
    meanwhile: each must be answered 200 within a few seconds."""
    stop = threading.Event()
    socks = []

    def trickle(i):
        try:
            s = socket.create_connection((HOST, port), timeout=5)
            socks.append(s)
            s.sendall(b'GET /api/chips HTTP/1.1\r\n')
            while not stop.is_set():
                s.sendall(b'X')
                time.sleep(0.3)
        except OSError:
            pass   # closed by the server: what it should do, in time
    ts = [threading.Thread(target=trickle, args=(i,)) for i in range(slow)]
    for t in ts:
        t.start()
    time.sleep(1.5)   # the slow ones hold every slot they can get
    ok, lat = 0, []
    end = time.monotonic() + seconds
    n = 0
    while n < probes and time.monotonic() < end + 10:
        t = time.monotonic()
        st, _, _ = request(port, timeout=10)
        lat.append(time.monotonic() - t)
        ok += st == 200
        n += 1
        time.sleep(max(0, seconds / probes - lat[-1]))
    stop.set()
    for s in socks:
        s.close()
    for t in ts:
        t.join()
    print(f'slowloris: {slow} slow clients; {ok} of {n} probes answered 200, slowest {max(lat) * 1e3:.0f} ms')
    return ok == probes and max(lat) < 5


def full(port, hold):
    """hold connections each send a head and the start of a large body
    (past the 64 KiB the gate keeps: the library holds them, and they
    cannot be evicted), then wait: the table is full. The next client must
    get 503 with Retry-After (after its short wait), not a reset."""
    socks = []
    for i in range(hold):
        s = socket.create_connection((HOST, port), timeout=10)
        s.sendall(f'POST /api/op HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n'
                  'Content-Length: 100000\r\n\r\n{"op": '.encode())
        socks.append(s)
    time.sleep(0.5)
    t = time.monotonic()
    st, hdrs, body = request(port, timeout=10)
    waited = time.monotonic() - t
    for s in socks:
        s.close()
    good = st == 503 and 'retry-after' in hdrs and json.loads(body).get('error')
    print(f'full: {hold} held connections; the next got {st} after {waited * 1e3:.0f} ms, '
          f'Retry-After {hdrs.get("retry-after")}, {body[:90]!r}')
    return bool(good)


SWEEP = {'spec': {'models': ['llama3-8b'], 'chips': ['tpuv5p', 'h100', 'a100', 'tpuv5e'],   # 192 points
                  'num_chips': [1, 2, 4], 'batch_sizes': [1, 2, 4, 8, 16, 32, 64, 128]}}


def heavy(port, n_heavy, gets, max_p99_ms):
    """n_heavy sweeps at once; GETs meanwhile stay fast (p99 below
    max_p99_ms: they are answered beside the queue, not behind it), and
    every sweep is answered (200, 503 past its time limit, or 504)."""
    codes = []

    def sweep(i):
        st, _, _ = request(port, 'POST', '/api/sweep', SWEEP, timeout=120)
        codes.append(st)
    ts = [threading.Thread(target=sweep, args=(i,)) for i in range(n_heavy)]
    for t in ts:
        t.start()
    time.sleep(0.3)
    lat, bad = [], 0
    for i in range(gets):
        t = time.monotonic()
        st, _, _ = request(port, timeout=30)
        lat.append(time.monotonic() - t)
        bad += st != 200
        time.sleep(0.01)
    for t in ts:
        t.join()
    answered = sum(c in (200, 503, 504) for c in codes)
    print(f'heavy: {n_heavy} sweeps at once ({sorted(codes)}); {gets} GETs meanwhile, p50 '
          f'{pct(lat, 50) * 1e3:.1f} ms, p99 {pct(lat, 99) * 1e3:.1f} ms, {bad} failed')
    return bad == 0 and answered == n_heavy and pct(lat, 99) * 1e3 < max_p99_ms


def queue(port, n):
    """n sweeps at once on a server of one worker, a queue of one and a
    tiny --queue-timeout: every one is answered, 503 (the queue full) or 504
    (waited behind a running one too long) with Retry-After, or 200 (the
    first, unless even it waited past the timeout); none lost."""
    codes = []

    def sweep(i):
        st, hdrs, body = request(port, 'POST', '/api/sweep', SWEEP, timeout=60)
        codes.append((st, 'retry-after' in hdrs, bool(json.loads(body or b'{}'))))
    run_threads(n, sweep)
    st = sorted(c[0] for c in codes)
    print(f'queue: {n} sweeps at once; answers {st}')
    busy_ok = all(c[1] and c[2] for c in codes if c[0] in (503, 504))
    return set(st) <= {200, 503, 504} and 503 in st and 504 in st and busy_ok


# Heads the library would refuse with HTML of its own: each answered JSON
# by the gate, with the status given.
HEADS = [
    (505, b'GET /api/chips HTTP/2.0\r\nHost: h\r\n\r\n'),
    (400, b'GET /api/chips HTTP/9\r\nHost: h\r\n\r\n'),
    (400, b'\x00\xff\xfe garbage\r\n\r\n'),
    (400, b'GET /api/chips HTTP/1.1\r\n\r\n'),                                    # no Host
    (400, b'GET /api/chips HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'),
    (400, b'GET /api/chips HTTP/1.1\r\nHost: h\r\nBad Header: x\r\n\r\n'),
    (400, b'GET /api/chips HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n'),
    (400, b'POST /api/op HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n'),
    (400, b'POST /api/op HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n'),
    (400, b'POST /api/op HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n'),
    (413, b'POST /api/op HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999\r\n\r\n'),
    (414, b'GET /' + b'a' * 5000 + b' HTTP/1.1\r\nHost: h\r\n\r\n'),
    (431, b'GET / HTTP/1.1\r\nHost: h\r\nX: ' + b'a' * 20000 + b'\r\n\r\n'),
]


def heads(port):
    bad = []
    for want, raw in HEADS:
        raw = raw.replace(b'Host: h\r\n', f'Host: {HOST}:{port}\r\n'.encode())
        try:
            with socket.create_connection((HOST, port), timeout=10) as s:
                s.sendall(raw)
                st, hdrs, body = read_answer(s)
        except OSError as e:
            st, hdrs, body = 0, {}, str(e).encode()
        try:
            err = json.loads(body.decode('utf-8'))['error']
        except (ValueError, KeyError):
            err = None
        if st != want or not err or hdrs.get('content-type') != 'application/json':
            bad.append((want, st, body[:60]))
    print(f'heads: {len(HEADS)} malformed heads, {len(HEADS) - len(bad)} answered JSON with the status expected'
          + (f'; wrong: {bad}' if bad else ''))
    return not bad


# One serving run of about 0.1 s of work that no cache shortens (each run is
# its own event loop): 48 of them on one worker outlast the signals' 0.6 s
# on any machine. Sweeps did not: their points share the server's memo, and
# 48 of them came to under 0.6 s, so a fast machine answered every one 200
# before the second signal (one failure in four runs).
SERVING = {'model': 'llama3-70b', 'chip': 'h100', 'tp': 8, 'rate': 5.3, 'requests': 2000, 'lengths': 'chat',
           'rows': False}


def inflight(port, n):
    """n serving runs at once. The caller signals the server meanwhile: every
    request must get an answer (200, or 503 when queued or past the grace),
    none a reset or an empty close."""
    codes = []

    def serve_one(i):
        st, _, body = request(port, 'POST', '/api/serving', SERVING, timeout=60)
        codes.append(st)
    print('started', flush=True)
    run_threads(n, serve_one)
    print(f'inflight: {n} requests; answers {sorted(codes)}')
    return all(c in (200, 503) for c in codes)


if __name__ == '__main__':
    what, port = sys.argv[1], int(sys.argv[2])
    args = [int(a) for a in sys.argv[3:]]
    fn = {'load': load, 'slowloris': slowloris, 'full': full, 'heavy': heavy, 'queue': queue, 'heads': heads,
          'inflight': inflight}[what]
    sys.exit(0 if fn(port, *args) else 1)
