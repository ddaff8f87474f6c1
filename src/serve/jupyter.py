# Runs notebook cells in order in one Python instance, Jupyter-style: each cell's stdout and
# stderr are its own, the value of a final expression is displayed, an exception is recorded
# and the next cell still runs. The cells arrive as JSON on stdin; each cell's result is
# appended to RESULTS as one JSON line as soon as it ends, so a deadline loses only the cell
# that was running.
import ast, base64, contextlib, io, json, sys, traceback

RESULTS = "/tmp/.run_jupyter.jsonl"
cells = json.loads(sys.stdin.read())
namespace = {"__name__": "__main__", "__builtins__": __builtins__}


def bundle(value):
    b = {"text/plain": repr(value)}
    html = getattr(value, "_repr_html_", None)
    if callable(html):
        try:
            h = html()
            if isinstance(h, str):
                b["text/html"] = h
        except Exception:
            pass
    return b


def figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return []
    out = []
    for n in plt.get_fignums():
        buf = io.BytesIO()
        plt.figure(n).savefig(buf, format="png")
        out.append({"image/png": base64.b64encode(buf.getvalue()).decode(),
                    "text/plain": "<Figure>"})
    plt.close("all")
    return out


for source in cells:
    out, err = io.StringIO(), io.StringIO()
    display, error = [], []
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            tree = ast.parse(source, "<cell>", "exec")
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            exec(compile(tree, "<cell>", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, "<cell>", "eval"), namespace)
                if value is not None:
                    display.append(bundle(value))
            display.extend(figures())
        except BaseException as e:
            error.append({"ename": type(e).__name__, "evalue": str(e),
                          "traceback": traceback.format_exception(e)})
    with open(RESULTS, "a", encoding="utf-8") as f:
        f.write(json.dumps({"stdout": out.getvalue(), "stderr": err.getvalue(),
                            "display": display, "error": error}) + "\n")
