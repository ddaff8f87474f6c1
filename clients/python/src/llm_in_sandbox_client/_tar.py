"""Folders to and from tar archives, with extraction that cannot write outside its folder."""

from __future__ import annotations

import io
import os
import posixpath
import shutil
import stat
import tarfile
from typing import Any, Dict, List, Mapping, Optional, Union

from .errors import UnsafeArchiveError

PathLike = Union[str, "os.PathLike[str]"]


def pack_dir(local_dir: PathLike) -> bytes:
    """Tar the contents of ``local_dir`` (names relative to it; the folder itself not included).

    Files, folders and symlinks (as links, not followed) are taken; sockets, FIFOs and devices
    are skipped. The archive is GNU format, which every tar reader takes.
    """
    root = os.fspath(local_dir)
    if not os.path.isdir(root):
        raise NotADirectoryError(f"not a folder: {root}")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, root)
            # os.walk lists symlinks to folders among dirnames but does not descend into them.
            names = sorted(dirnames + filenames)
            for name in names:
                full = os.path.join(dirpath, name)
                arcname = name if rel_dir == "." else posixpath.join(
                    rel_dir.replace(os.sep, "/"), name
                )
                st = os.lstat(full)
                if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)
                        or stat.S_ISLNK(st.st_mode)):
                    continue
                tar.add(full, arcname=arcname, recursive=False)
    return buf.getvalue()


def _member_parts(name: str) -> List[str]:
    """The path components of a member name, refusing absolute names and ``..``."""
    if not name:
        raise UnsafeArchiveError("tar member with an empty name")
    if "\x00" in name:
        raise UnsafeArchiveError(f"tar member {name!r} has a NUL byte")
    norm = name.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        raise UnsafeArchiveError(f"tar member {name!r} has an absolute name")
    parts = [p for p in norm.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchiveError(f"tar member {name!r} climbs out with '..'")
    return parts


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _check_link_target(member: tarfile.TarInfo, parts: List[str]) -> None:
    """Lexical check of a symlink's target: relative, and not above the extraction root."""
    target = member.linkname.replace("\\", "/")
    if not target:
        raise UnsafeArchiveError(f"symlink {member.name!r} has no target")
    if target.startswith("/") or (len(target) > 1 and target[1] == ":"):
        raise UnsafeArchiveError(
            f"symlink {member.name!r} points to the absolute path {member.linkname!r}"
        )
    depth = len(parts) - 1  # folders above the link, inside the root
    for piece in target.split("/"):
        if piece in ("", "."):
            continue
        depth = depth - 1 if piece == ".." else depth + 1
        if depth < 0:
            raise UnsafeArchiveError(
                f"symlink {member.name!r} -> {member.linkname!r} points outside the folder"
            )


def safe_extract(data: Union[bytes, io.IOBase], dest: PathLike) -> Dict[str, int]:
    """Extract a tar into ``dest`` (created), refusing anything that would leave it.

    Refused (:class:`UnsafeArchiveError`, nothing written): absolute member names, names with
    ``..``, symlinks with an absolute target or one that climbs above ``dest``, hard links to
    names that are unsafe or not earlier regular files of the archive, devices and FIFOs.
    While extracting, every file is written only after checking, with symlinks resolved, that
    its folder is inside ``dest``; a symlink already at a file's place is replaced, not followed.
    Returns ``{"files": N, "bytes": N}``.
    """
    fileobj = io.BytesIO(data) if isinstance(data, (bytes, bytearray)) else data
    os.makedirs(os.fspath(dest), exist_ok=True)
    root = os.path.realpath(os.fspath(dest))
    files = 0
    size = 0
    with tarfile.open(fileobj=fileobj, mode="r:*") as tar:
        members = tar.getmembers()
        # First pass: refuse the whole archive before writing anything.
        plan = []
        regular = set()
        for m in members:
            parts = _member_parts(m.name)
            if m.issym():
                _check_link_target(m, parts)
            elif m.islnk():
                link_parts = _member_parts(m.linkname)
                if "/".join(link_parts) not in regular:
                    raise UnsafeArchiveError(
                        f"hard link {m.name!r} -> {m.linkname!r} does not name an earlier file"
                        " of the archive"
                    )
            elif m.isfile():
                regular.add("/".join(parts))
            elif not m.isdir():
                raise UnsafeArchiveError(
                    f"tar member {m.name!r} is a device, FIFO or other special file"
                )
            plan.append((m, parts))

        def ensure_dir(parts: List[str]) -> str:
            """Create the folders ``parts`` under the root one level at a time, following a
            symlink only when it resolves inside the root; returns the real path."""
            cur = root
            for piece in parts:
                nxt = os.path.join(cur, piece)
                if os.path.islink(nxt):
                    nxt = os.path.realpath(nxt)
                    if not _inside(root, nxt):
                        raise UnsafeArchiveError(
                            f"tar member path {'/'.join(parts)!r} goes through a symlink"
                            f" that leaves {root}"
                        )
                if not os.path.lexists(nxt):
                    os.mkdir(nxt)
                elif not os.path.isdir(nxt):
                    raise UnsafeArchiveError(
                        f"tar member path {'/'.join(parts)!r}: {piece!r} is not a folder"
                    )
                cur = nxt
            return cur

        def place(parts: List[str]) -> str:
            """The member's host path, in a folder checked to be inside the root."""
            return os.path.join(ensure_dir(parts[:-1]), parts[-1])

        def clear(path: str) -> None:
            if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
                os.unlink(path)

        links = []
        for m, parts in plan:
            if not parts:
                continue  # the root itself
            if m.isdir():
                ensure_dir(parts)
                continue
            path = place(parts)
            if m.isfile():
                clear(path)
                src = tar.extractfile(m)
                with open(path, "wb") as out:
                    if src is not None:
                        shutil.copyfileobj(src, out)
                os.chmod(path, (m.mode & 0o777) | 0o600)
                files += 1
                size += m.size
            elif m.islnk():
                clear(path)
                source = os.path.join(root, *_member_parts(m.linkname))
                real_source = os.path.realpath(source)
                if not _inside(root, real_source) or not os.path.isfile(real_source):
                    raise UnsafeArchiveError(
                        f"hard link {m.name!r} -> {m.linkname!r} points outside {root}"
                    )
                shutil.copyfile(real_source, path)
                files += 1
                size += os.path.getsize(path)
            elif m.issym():
                clear(path)
                os.symlink(m.linkname, path)
                links.append(path)
        # A later member may have changed what an earlier symlink resolves to: check them all
        # now, and take out any that ends up pointing outside.
        for path in links:
            if not _inside(root, os.path.realpath(path)):
                os.unlink(path)
                raise UnsafeArchiveError(
                    f"symlink {os.path.relpath(path, root)!r} resolves outside {root}"
                )
    return {"files": files, "bytes": size}


def input_archive(files: Mapping[str, Any]) -> Optional[bytes]:
    """A tar of ``files`` (relative path -> text or bytes; None skipped), or None when there is
    nothing to copy. Paths that are absolute or climb out are refused."""
    buf = io.BytesIO()
    count = 0
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        folders = set()
        for name, content in files.items():
            if content is None:
                continue
            path = posixpath.normpath(str(name).replace("\\", "/"))
            if path.startswith("/") or path in (".", "..") or path.startswith("../"):
                raise ValueError(f"input_files: {name!r} is not a path inside the input folder")
            if isinstance(content, str):
                data = content.encode("utf-8")
            elif isinstance(content, (bytes, bytearray)):
                data = bytes(content)
            else:
                raise TypeError(f"input_files: {name!r} holds {type(content).__name__}, not text")
            parts = path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                folder = "/".join(parts[:i])
                if folder not in folders:
                    folders.add(folder)
                    info = tarfile.TarInfo(folder)
                    info.type = tarfile.DIRTYPE
                    info.mode = 0o755
                    tar.addfile(info)
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
            count += 1
    return buf.getvalue() if count else None
