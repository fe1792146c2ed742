"""ROS 2 bags the tests write themselves: a bag whose one storage file is
zstd FILE-compressed zeros, which decompress cheaply to any size and are
no SQLite database (only a complete decompression finds that out)."""

import struct
import textwrap


def zstd_zeros(size):
    """A zstd frame of `size` zero bytes (a multiple of 128 KiB), made of
    run-length blocks: a few KB for hundreds of MB."""
    block = 128 << 10
    assert size % block == 0
    out = bytearray(struct.pack("<I", 0xFD2FB528))
    # No content size, no checksum; a 128 KiB window.
    out += bytes([0x00, 7 << 3])
    n = size // block
    for i in range(n):
        last = 1 if i == n - 1 else 0
        header = last | (1 << 1) | (block << 3)
        out += header.to_bytes(3, "little") + b"\x00"
    return bytes(out)


def write_metadata(folder, storage_file, version, compression=""):
    """Writes `folder`'s metadata.yaml: a bag of no messages in the one
    SQLite storage file `storage_file`, FILE-compressed with
    `compression` when one is named."""
    mode = "FILE" if compression else '""'
    (folder / "metadata.yaml").write_text(textwrap.dedent(f"""\
        rosbag2_bagfile_information:
          version: {version}
          storage_identifier: sqlite3
          duration:
            nanoseconds: 0
          starting_time:
            nanoseconds_since_epoch: 0
          message_count: 0
          topics_with_message_count: []
          compression_format: {compression or '""'}
          compression_mode: {mode}
          relative_file_paths:
            - {storage_file}
          files: []
        """))


def file_compressed_zeros_bag(folder, size):
    """Writes into the new folder `folder` a bag (metadata version 9) whose
    one storage file, bag_0.db3.zstd, decompresses to `size` zero bytes."""
    folder.mkdir()
    (folder / "bag_0.db3.zstd").write_bytes(zstd_zeros(size))
    write_metadata(folder, "bag_0.db3.zstd", version=9, compression="zstd")
    return folder
