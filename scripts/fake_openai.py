#!/usr/bin/env python3
"""A stand-in OpenAI-compatible chat endpoint for trying a CI pipeline without a model.

    python3 scripts/fake_openai.py 8011 &
    llm-in-sandbox benchmark --task demo --llm-base-url http://127.0.0.1:8011/v1 --llm-name fake

With tools (sandbox mode) it runs one bash command that writes "42" to the answer file, then
submits; without tools (--mode llm) it replies "Answer: 42". Scores are meaningless; the job's
plumbing (runtime cache, sandbox, reports, gates) is real. Standard library only.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def reply(req):
    msgs = req.get("messages", [])
    if "tools" not in req:
        message = {"role": "assistant", "content": "Reasoning...\nAnswer: 42"}
    elif any(m.get("role") == "tool" for m in msgs):
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_2", "type": "function",
             "function": {"name": "submit", "arguments": "{}"}}]}
    else:
        args = json.dumps({"command": "echo 42 > /testbed/answer.txt"})
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "execute_bash", "arguments": args}}]}
    return {"id": "fake", "object": "chat.completion", "model": req.get("model", "fake"),
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": 90, "completion_tokens": 10, "total_tokens": 100}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        out = json.dumps(reply(json.loads(body or b"{}"))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8011
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
