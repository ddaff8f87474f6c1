# json: dumps (sorted keys) and loads of nested records, three times, then an indented dump.
import json


def work(n):
    records = [
        {
            "id": i,
            "name": f"item-{i}",
            "tags": ["a", "b", str(i % 7)],
            "price": i * 0.25,
            "nested": {"x": i % 13, "y": [i, i + 1, i + 2], "ok": i % 2 == 0, "none": None},
        }
        for i in range(n)
    ]
    total = 0
    back = records
    for _ in range(3):
        text = json.dumps(records, sort_keys=True)
        back = json.loads(text)
        total += len(text) + sum(r["nested"]["x"] for r in back)
    pretty = json.dumps(back[: n // 10], indent=2)
    return f"{total} {len(pretty)} {back[-1]['price']}"
