"""The benchmark's source origin on 127.0.0.1: serves the JPEGs in a folder with an ETag, and
answers If-None-Match with 304. Paths under /fresh/ carry max-age=86400, paths under /short/
max-age=1 (the revalidation runs). Usage: origin.py FOLDER PORT"""
import hashlib
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FOLDER, PORT = sys.argv[1], int(sys.argv[2])
FILES = {}
for name in os.listdir(FOLDER):
    with open(os.path.join(FOLDER, name), "rb") as handle:
        body = handle.read()
    FILES[name] = (body, '"%s"' % hashlib.sha256(body).hexdigest()[:32])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        parts = self.path.split("?")[0].strip("/").split("/")
        if len(parts) != 2 or parts[0] not in ("fresh", "short") or parts[1] not in FILES:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body, etag = FILES[parts[1]]
        max_age = 86400 if parts[0] == "fresh" else 1
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Cache-Control", "max-age=%d" % max_age)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Cache-Control", "max-age=%d" % max_age)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
