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


def plug():
    """Fill the allocator's free chunks, so a call's new objects come from the heap's top.

    Why: making the snapshot (imports, the warm-ups, the pass above) frees many blocks, left
    as free chunks all over the heap. wasi-libc's allocator (dlmalloc; this build has no
    pymalloc) hands those out first, so a call's first few hundred small objects landed on as
    many scattered pages of the image, each copied for that call alone (`pass` wrote 215
    pages, 104 of them for this). Filled here, a call's objects are carved one after another
    from the top, a few pages in all.

    How: a block bigger than any free chunk comes from the top; dropped, it merges back, so
    its address is where the top starts. Then for each size, from large to small, blocks are
    taken while they come from below that address (a free chunk) and kept. The last size
    (16 bytes, an `object()`) takes whatever is left. A second sweep takes the chunks this
    function's own temporaries gave back. Objects only move memory that was free; nothing
    is read or changed. Run as the snapshot's very last step, in a turn of its own (see
    preload.rs): what is freed after it becomes a free chunk in every call's image again.

    Returns what keeps the fillers alive (the caller holds it for good); its first item is
    (fillers, bytes, largest size that found a free chunk), for the record."""
    probe = bytes(8 << 20)
    top = id(probe)
    del probe
    keep = [None]
    chunk, at = [None] * 4096, 0
    count = total = largest = 0
    # A `bytes` of n takes a block of n + 17 bytes (header, then a closing NUL); dlmalloc's
    # chunk adds 4 and rounds up to 16. Sizes here are chunk sizes.
    sizes = tuple([1 << k for k in range(22, 10, -1)] + list(range(1024 - 16, 16, -16)) + [0])
    for sweep in sizes, sizes[-8:]:
        for size in sweep:
            while True:
                obj = bytes(size - 21) if size else object()
                if id(obj) >= top:
                    break
                if at == len(chunk):
                    keep.append(chunk)
                    chunk, at = [None] * 4096, 0
                chunk[at] = obj
                at += 1
                count += 1
                total += size or 16
                largest = max(largest, size)
            del obj
    keep.append(chunk)
    keep[0] = (count, total, largest)
    return keep
