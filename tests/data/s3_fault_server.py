# A tiny S3-like HTTP server that injects faults, for ember's S3 client tests.
#   python3 s3_fault_server.py            -> prints "PORT <n>" once it listens on 127.0.0.1
# Objects: PUT /bucket/key stores the body; GET and HEAD serve it (single byte ranges,
# ETag, If-Match). Control (never faulted):
#   POST /__faults   JSON list of rules, appended; each rule is consumed `count` times by the
#                    first requests it matches: {"kind": K, "count": 1, "method": "GET",
#                    "range_start": 1048576, "seconds": 5, "status": 400, "body": "..."}
#                    K: "status" (answer `status` with `body`, echoing the request's
#                    Authorization and X-Amz-Security-Token into it the way S3's
#                    SignatureDoesNotMatch does), "slowdown" (503 SlowDown), "drop" (close
#                    without answering), "drop_mid" (send half the body, then close),
#                    "stall" (sleep `seconds` before answering), "no_range" (ignore Range).
#   POST /__reset    forget rules and the request log
#   GET  /__requests JSON list of {"method", "path", "range", "signed"} seen so far
import hashlib
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

objects = {}
rules = []
seen = []
lock = threading.Lock()


def take_rule(method, range_start):
    with lock:
        for r in rules:
            if r.get("count", 1) <= 0:
                continue
            if "method" in r and r["method"] != method:
                continue
            if "range_start" in r and r["range_start"] != range_start:
                continue
            r["count"] = r.get("count", 1) - 1
            return r
    return None


def error_xml(code, message, extra=""):
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code>'
            f"<Message>{message}</Message>{extra}<RequestId>FAULT1234</RequestId></Error>").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=(), head_only=False):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head_only:
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def control(self):
        if self.path == "/__faults":
            new = json.loads(self.body())
            with lock:
                rules.extend(new)
            return self.reply(200, b"ok")
        if self.path == "/__reset":
            self.body()
            with lock:
                rules.clear()
                seen.clear()
            return self.reply(200, b"ok")
        if self.path == "/__requests":
            with lock:
                data = json.dumps(seen).encode()
            return self.reply(200, data, [("Content-Type", "application/json")])
        return self.reply(404, b"no such control")

    def handle_any(self):
        if self.path.startswith("/__"):
            return self.control()
        method = self.command
        rng = self.headers.get("Range")
        start = None
        if rng and rng.startswith("bytes="):
            start = int(rng[6:].split("-")[0] or 0)
        with lock:
            seen.append({"method": method, "path": self.path, "range": rng,
                         "signed": "Authorization" in self.headers})
        payload = self.body() if method == "PUT" else b""
        rule = take_rule(method, start)
        kind = rule["kind"] if rule else None
        if kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if kind == "stall":
            time.sleep(rule.get("seconds", 5))
        if kind == "slowdown":
            return self.reply(503, error_xml("SlowDown", "Please reduce your request rate."))
        if kind == "status":
            body = rule.get("body")
            if body is None:
                # Like S3's SignatureDoesNotMatch: echo what was signed (it may hold secrets).
                echo = (f"<AuthorizationHeader>{self.headers.get('Authorization')}</AuthorizationHeader>"
                        f"<SecurityToken>{self.headers.get('X-Amz-Security-Token')}</SecurityToken>")
                body = error_xml(rule.get("code", "InternalError"), rule.get("message", "injected"), echo)
            else:
                body = body.encode()
            return self.reply(rule["status"], body, head_only=(method == "HEAD"))

        path = self.path.split("?")[0]
        if method == "PUT":
            objects[path] = payload
            return self.reply(200, b"", [("ETag", '"%s"' % hashlib.md5(payload).hexdigest())])
        if method == "DELETE":
            objects.pop(path, None)
            return self.reply(204)
        data = objects.get(path)
        if data is None:
            return self.reply(404, error_xml("NoSuchKey", "The specified key does not exist."),
                              head_only=(method == "HEAD"))
        etag = '"%s"' % hashlib.md5(data).hexdigest()
        if self.headers.get("If-Match") not in (None, etag):
            return self.reply(412, error_xml("PreconditionFailed", "At least one of the preconditions failed."))
        status, headers, body = 200, [("ETag", etag)], data
        if rng and kind != "no_range":
            a, b = rng[6:].split("-")
            a = int(a)
            b = min(int(b), len(data) - 1) if b else len(data) - 1
            if a >= len(data):
                return self.reply(416, error_xml("InvalidRange", "The requested range is not satisfiable"))
            body = data[a:b + 1]
            status = 206
            headers.append(("Content-Range", f"bytes {a}-{b}/{len(data)}"))
        if kind == "drop_mid" and method == "GET":
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.reply(status, body, headers, head_only=(method == "HEAD"))

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    srv = Server(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print("PORT", srv.server_address[1], flush=True)
    srv.serve_forever()
