"""Copies the C++ sources that the error-code tests read ("every Error the library makes ...
names its code", "every Error the tools make names its code") into the build folder, so those
tests read the copy and never the source tree: a build folder taken to another host runs them.
The copy is made afresh each build (a file deleted from the tree leaves the copy too).

Usage: copy_source_tree.py SOURCE_ROOT DESTINATION STAMP DIR... (each DIR relative to
SOURCE_ROOT, copied without its subfolders, as the tests walk it; STAMP lists what was copied)."""
import os
import shutil
import sys


def main():
    source_root, destination, stamp, folders = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    shutil.rmtree(destination, ignore_errors=True)
    copied = []
    for folder in folders:
        source = os.path.join(source_root, folder)
        target = os.path.join(destination, folder)
        os.makedirs(target, exist_ok=True)
        for name in sorted(os.listdir(source)):
            path = os.path.join(source, name)
            if os.path.isfile(path) and name.endswith((".cpp", ".hpp")):
                shutil.copyfile(path, os.path.join(target, name))
                copied.append(os.path.join(folder, name))
    if not copied:
        sys.exit("copy_source_tree.py: no .cpp or .hpp file in " + ", ".join(folders) + " under " + source_root)
    with open(stamp, "w", encoding="utf-8") as out:
        out.write("\n".join(copied) + "\n")


if __name__ == "__main__":
    main()
