# A file host that answers HEAD with 200 and GET with 500, on a free 127.0.0.1 port (printed).
# LAVA 2023.01 checks an image URL with HEAD when it validates a job, then downloads it with
# GET: a GET that fails after that is an InfrastructureError in lava_dispatcher
# (actions/deploy/download.py, "Unable to download"). Used to make the real LAVA lab end a
# job Incomplete with an infrastructure error (tests/integration/lava_lab.sh).
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_HEAD(self):
        self.send_response(200); self.send_header("Content-Length", "1048576"); self.end_headers()
    def do_GET(self):
        self.send_response(500); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
