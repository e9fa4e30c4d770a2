"""A bounds-checked reader of FlatBuffers tables, vectors and strings (the
wire format of .tflite files), for `keras_skim.runtime.tflite_check`.

Every read is checked against the buffer's end before it is made, in the
way FlatBuffers' own C++ `Verifier` checks a buffer (FlatBuffers' "internals"
documentation: a table starts with a signed 32-bit offset back to its
vtable; the vtable holds its own size, the table's inline size and one
16-bit offset per field, 0 for an absent field; offsets to tables, vectors
and strings are unsigned 32-bit and relative to where they are stored; a
vector or string is a 32-bit length, then its elements; a string ends in a
0 byte). A violation raises `FlatbufferError` with one line saying where.
Plain Python (`struct`), no FlatBuffers package and no TensorFlow.
"""

import struct

_U8, _I8 = struct.Struct("<B"), struct.Struct("<b")
_U16 = struct.Struct("<H")
_I32, _U32 = struct.Struct("<i"), struct.Struct("<I")
_U64 = struct.Struct("<Q")
SCALARS = {"u8": _U8, "i8": _I8, "u16": _U16, "i32": _I32, "u32": _U32, "u64": _U64}
# struct codes of vector elements, by name.
ELEMENTS = {"u8": "B", "i32": "i", "i64": "q", "f32": "f", "bool": "B"}


class FlatbufferError(ValueError):
    """A buffer that breaks the FlatBuffers format; the message is one line
    naming the table and field."""


class Flatbuffer:
    """The bytes of one flatbuffer with checked scalar reads."""

    def __init__(self, data):
        self.data = data
        self.size = len(data)

    def need(self, pos, length, what):
        """Raises unless [pos, pos + length) lies inside the buffer."""
        if pos < 0 or length < 0 or pos + length > self.size:
            raise FlatbufferError(f"{what} points outside the file (byte {pos}, {length} bytes, file {self.size})")

    def scalar(self, kind, pos, what):
        fmt = SCALARS[kind]
        self.need(pos, fmt.size, what)
        return fmt.unpack_from(self.data, pos)[0]

    def aligned(self, pos, alignment, what):
        if pos % alignment:
            raise FlatbufferError(f"{what} is not {alignment}-byte aligned (byte {pos})")

    def root(self, what):
        """The root table (its offset is the buffer's first 4 bytes)."""
        return Table(self, self.scalar("u32", 0, f"{what} root offset"), what)


class Table:
    """One table: its position, vtable and inline size, checked on creation."""

    def __init__(self, fb, pos, what):
        fb.aligned(pos, 4, what)
        vtable = pos - fb.scalar("i32", pos, what)
        fb.aligned(vtable, 2, what)
        vtable_size = fb.scalar("u16", vtable, what)
        inline_size = fb.scalar("u16", vtable + 2, what)
        if vtable_size < 4 or vtable_size % 2:
            raise FlatbufferError(f"{what} has a malformed vtable (size {vtable_size})")
        fb.need(vtable, vtable_size, f"{what} vtable")
        if inline_size < 4:
            raise FlatbufferError(f"{what} has a malformed vtable (table size {inline_size})")
        fb.need(pos, inline_size, what)
        self.fb, self.pos, self.what, self._inline_size = fb, pos, what, inline_size
        # The field offsets, read once (every field read below looks one up).
        self._slots = struct.unpack_from(f"<{(vtable_size - 4) // 2}H", fb.data, vtable + 4)

    def has(self, field):
        return self._slot(field) != 0

    def _slot(self, field):
        return self._slots[field] if field < len(self._slots) else 0

    def _field(self, field, size):
        """The position of a present field of `size` bytes, or None; the
        field is checked to lie inside the table (and so inside the file)."""
        offset = self._slots[field] if field < len(self._slots) else 0
        if not offset:
            return None
        if offset + size > self._inline_size:
            raise FlatbufferError(f"{self.what}: field {field} lies outside its table")
        return self.pos + offset

    def check_fields(self, size=8):
        """Checks that every present field of a table whose schema the caller
        does not spell out starts inside it and has `size` bytes of file
        after it (a scalar read of any width stays in the buffer)."""
        for field, offset in enumerate(self._slots):
            if offset:
                if offset >= self._inline_size:
                    raise FlatbufferError(f"{self.what}: field {field} lies outside its table")
                self.fb.need(self.pos + offset, size, f"{self.what} field {field}")

    def scalar(self, field, kind, default=0):
        fmt = SCALARS[kind]
        pos = self._field(field, fmt.size)
        return default if pos is None else fmt.unpack_from(self.fb.data, pos)[0]

    def _target(self, field):
        pos = self._field(field, 4)
        if pos is None:
            return None
        target = pos + _U32.unpack_from(self.fb.data, pos)[0]
        if target + 4 > self.fb.size:
            raise FlatbufferError(f"{self.what}: field {field} points outside the file")
        return target

    def table(self, field, what):
        """The sub-table of a field, or None when absent."""
        target = self._target(field)
        return None if target is None else Table(self.fb, target, what)

    def _vector(self, field, element_size, what):
        """(start of the elements, count) of a vector field, or None."""
        target = self._target(field)
        if target is None:
            return None
        if target % 4:
            raise FlatbufferError(f"{what} is not 4-byte aligned (byte {target})")
        count = _U32.unpack_from(self.fb.data, target)[0]
        if target + 4 + count * element_size > self.fb.size:
            raise FlatbufferError(f"{what} ({count} elements) runs past the end of the file")
        return target + 4, count

    def scalars(self, field, kind, what):
        """The elements of a vector of scalars (a tuple; () when absent)."""
        found = self._vector(field, struct.calcsize("<" + ELEMENTS[kind]), what)
        if found is None:
            return ()
        start, count = found
        return struct.unpack_from(f"<{count}{ELEMENTS[kind]}", self.fb.data, start)

    def byte_count(self, field, what):
        """The length of a vector of bytes (0 when absent), its data checked
        to lie in the buffer."""
        found = self._vector(field, 1, what)
        return 0 if found is None else found[1]

    def string(self, field, what):
        """A string field's bytes (None when absent); it must end in a 0 byte."""
        found = self._vector(field, 1, what)
        if found is None:
            return None
        start, count = found
        self.fb.need(start + count, 1, what)
        if self.fb.data[start + count] != 0:
            raise FlatbufferError(f"{what} is not 0-terminated")
        return bytes(self.fb.data[start : start + count])

    def tables(self, field, what):
        """The tables of a vector of tables ([] when absent)."""
        found = self._vector(field, 4, what)
        if found is None:
            return []
        start, count = found
        offsets = struct.unpack_from(f"<{count}I", self.fb.data, start)
        return [Table(self.fb, start + 4 * i + offset, f"{what} {i}") for i, offset in enumerate(offsets)]
