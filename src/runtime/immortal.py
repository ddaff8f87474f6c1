# Run once while the preloaded snapshot is made (src/runtime/preload.rs), after the last
# collection: make every object the snapshot holds immortal.
#
# Why: every call starts from a copy-on-write image of the snapshot, and CPython writes an
# object's reference count whenever it takes or drops a reference, even a borrowed moment
# (calling `len`, loading a module attribute, running a function). Each such write copies a
# whole 4 KiB page for that call, though most counts end where they started. Immortal objects
# (CPython 3.12+, PEP 683) have their count left alone, so calls stop copying the pages of the
# modules, functions, types and constants they only use. Snapshot objects are never freed
# anyway (the instance is thrown away after the call); objects a call makes are unaffected.
#
# How: numpy's array interface gives a view of the guest's own memory, and each object's
# count (the first word at its `id`) is set to the value CPython gives immortal heap objects,
# read off an interned string. Without numpy or `sys._is_immortal` nothing is done.


def immortalize():
    """Make the snapshot's objects immortal; returns how many were changed."""
    import gc
    import sys

    np = sys.modules.get("numpy")
    is_immortal = getattr(sys, "_is_immortal", None)
    if np is None or is_immortal is None:
        return 0

    class Words:
        def __init__(self, address, count):
            self.__array_interface__ = {
                "shape": (count,),
                "typestr": "<u4",
                "data": (address, False),
                "version": 3,
            }

    # CPython's count for an immortal heap object on 32-bit builds (_Py_IMMORTAL_INITIAL_REFCNT:
    # immortal from 2**30 up; 6 << 28 and up marks static objects). Checked on a throwaway.
    immortal = 5 << 28
    if sys.maxsize != (1 << 31) - 1:
        return 0
    probe = [None]
    np.asarray(Words(id(probe), 1))[0] = immortal
    if not is_immortal(probe):
        return 0
    # Every object reachable from a tracked one (strings, numbers and untracked tuples are
    # not tracked themselves). `seen` is a bitmap of addresses (objects are 8-byte aligned)
    # rather than a set, to keep this pass's own memory (and so the snapshot) small.
    seen = bytearray(1 << 20)
    found = np.empty(1 << 20, dtype=np.uint32)
    count = 0
    todo = gc.get_objects()
    while todo:
        obj = todo.pop()
        at = id(obj)
        bit = at >> 3
        if bit >> 3 >= len(seen):
            seen.extend(bytes((bit >> 3) + 1 - len(seen) + (1 << 20)))
        if seen[bit >> 3] & (1 << (bit & 7)):
            continue
        seen[bit >> 3] |= 1 << (bit & 7)
        if not is_immortal(obj):
            if count == len(found):
                found = np.resize(found, 2 * count)
            found[count] = at
            count += 1
        todo.extend(gc.get_referents(obj))
    del todo, seen
    found = found[:count]
    low = int(found.min()) & ~3
    words = np.asarray(Words(low, (int(found.max()) - low) // 4 + 1))
    words[(found - low) // 4] = immortal
    return count
