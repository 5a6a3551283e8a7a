"""bslz4.cuda.DeviceArray: what decompress and integrate leave on the GPU, indexed and sliced as
CuPy's arrays are (basic indexing: integers, slices with steps, Ellipsis, None), each result a
view of the same memory, never a copy. A view keeps the whole allocation alive, and is exported
as itself: __cuda_array_interface__ (with strides when it is not C-contiguous) and DLPack (a
tensor of the view's pointer, shape and strides, holding the allocation); get() copies only the
bytes the view spans. Fancy indexing (arrays, booleans), which copies in CuPy, is refused."""
import operator

import numpy as np

from ._driver_copy import copy_to_host

_KDL_CUDA = 2


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


class _Flags:
    def __init__(self, c_contiguous, f_contiguous):
        self.c_contiguous, self.f_contiguous, self.owndata = c_contiguous, f_contiguous, False

    def __repr__(self):
        return "  C_CONTIGUOUS : %s\n  F_CONTIGUOUS : %s\n  OWNDATA : False" % (self.c_contiguous, self.f_contiguous)


class DeviceArray:
    """An array on the GPU: shape, dtype, strides (bytes), ptr (device address of element 0),
    device (its ordinal), nbytes, size, ndim. a[...] is a view; get() a numpy copy; CuPy,
    PyTorch and JAX take it, or any view of it, without a copy (cupy.asarray, from_dlpack)."""

    def __init__(self, whole, offset=0, shape=None, strides=None):
        # whole: the C++ array (bslz4._bslz4.DeviceArray) owning the memory; offset in bytes
        self._whole = whole
        self.dtype = np.dtype(whole.dtype)
        self.shape = tuple(int(n) for n in (whole.shape if shape is None else shape))
        self.strides = _c_strides(self.shape, self.dtype.itemsize) if strides is None else tuple(strides)
        self._offset = int(offset)

    # -- what it is
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def device(self):
        return self._whole.device

    @property
    def ptr(self):
        """The device address of the first element (a CUdeviceptr)."""
        return self._whole.ptr + self._offset

    @property
    def flags(self):
        return _Flags(self._c_contiguous(), self.strides == tuple(reversed(_c_strides(self.shape[::-1], self.itemsize))))

    def _c_contiguous(self):
        if self.size <= 1:
            return True
        return all(n == 1 or s == c for n, s, c in zip(self.shape, self.strides, _c_strides(self.shape, self.itemsize)))

    def _is_whole(self):
        return self._offset == 0 and self.shape == tuple(self._whole.shape) and self._c_contiguous()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def __repr__(self):
        return "<bslz4 DeviceArray shape=%s dtype=%s device=%d%s>" % (
            self.shape, self.dtype.name, self.device, "" if self._is_whole() else " (view)")

    # -- views
    def __getitem__(self, key):
        offset, shape, strides = _basic_index(self.shape, self.strides, key)
        return DeviceArray(self._whole, self._offset + offset, shape, strides)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def reshape(self, *shape):
        """A view of another shape (one -1 allowed); the array must be C-contiguous, as a reshape
        without a copy needs."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = [operator.index(n) for n in shape]
        if shape.count(-1) > 1:
            raise ValueError("can only specify one unknown dimension")
        if -1 in shape:
            known = int(np.prod([n for n in shape if n != -1], dtype=np.int64))
            if known == 0 or self.size % known:
                raise ValueError("cannot reshape an array of size %d into shape %s" % (self.size, tuple(shape)))
            shape[shape.index(-1)] = self.size // known
        if int(np.prod(shape, dtype=np.int64)) != self.size:
            raise ValueError("cannot reshape an array of size %d into shape %s" % (self.size, tuple(shape)))
        if not self._c_contiguous():
            raise ValueError("a reshape of a non-contiguous view would need a copy")
        return DeviceArray(self._whole, self._offset, shape, None)

    def ravel(self):
        return self.reshape(-1)

    def transpose(self, *axes):
        if not axes or axes == (None,):
            axes = tuple(reversed(range(self.ndim)))
        elif len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        axes = [operator.index(a) % self.ndim if self.ndim else operator.index(a) for a in axes]
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError("axes don't match array")
        return DeviceArray(self._whole, self._offset, [self.shape[a] for a in axes], [self.strides[a] for a in axes])

    @property
    def T(self):
        return self.transpose()

    # -- to other libraries, without a copy
    @property
    def __cuda_array_interface__(self):
        """Version 3; strides None when C-contiguous; no stream: complete when made."""
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr if self.size else 0, False),
                "version": 3, "strides": None if self._c_contiguous() else self.strides, "stream": None}

    def __dlpack_device__(self):
        return (_KDL_CUDA, self.device)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule (1.0 when max_version asks for it, else the classic one) of this
        array or view, sharing its memory; no stream is waited for (complete when made)."""
        if self._is_whole():
            return self._whole.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)
        if copy:
            raise BufferError("a bslz4 device array is exported without a copy only (copy=True refused)")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("a bslz4 device array lives on CUDA device %d and is not copied elsewhere" % self.device)
        versioned = max_version is not None and int(max_version[0]) >= 1
        return self._whole._dlpack_view(self._offset, list(self.shape),
                                        [s // self.itemsize for s in self.strides], versioned)

    # -- to the host
    def get(self, out=None, stream=None):
        """A numpy copy (into out, a writable numpy array of this shape and dtype, when given).
        stream: accepted as CuPy's get takes it; the copy is complete when this returns."""
        if out is not None:
            if not isinstance(out, np.ndarray) or out.shape != self.shape or out.dtype != self.dtype:
                raise ValueError("out must be a numpy array of shape %s and dtype %s" % (self.shape, self.dtype))
            if not out.flags.writeable:
                raise ValueError("out is not writable")
        if self.size == 0:
            host = np.empty(self.shape, self.dtype)
        elif self._is_whole():
            host = self._whole.get()
        else:
            host = self._spanned_copy()
        if out is None:
            return host
        out[...] = host
        return out

    def _spanned_copy(self):
        low = sum(min(0, (n - 1) * s) for n, s in zip(self.shape, self.strides))
        high = sum(max(0, (n - 1) * s) for n, s in zip(self.shape, self.strides)) + self.itemsize
        span = np.empty(high - low, np.uint8)
        copy_to_host(self.device, self.ptr + low, span.nbytes, span.ctypes.data)
        view = np.ndarray(self.shape, self.dtype, buffer=span, offset=-low, strides=self.strides)
        return view.copy(order="C")  # (np.ascontiguousarray would make a 0-d view 1-d)


def _basic_index(shape, strides, key):
    """(byte offset, shape, strides) of a[key] for numpy's basic indexing."""
    if not isinstance(key, tuple):
        key = (key,)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise IndexError("too many indices for array: array is %d-dimensional, but %d were indexed" % (len(shape), used))
    fill = (slice(None),) * (len(shape) - used)
    if any(k is Ellipsis for k in key):
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:at] + fill + key[at + 1:]
    else:
        key = key + fill
    offset, out_shape, out_strides, axis = 0, [], [], 0
    for k in key:
        if k is None:
            out_shape.append(1)
            out_strides.append(0)
            continue
        n, s = shape[axis], strides[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            count = len(range(start, stop, step))
            if count:
                offset += start * s
            out_shape.append(count)
            out_strides.append(s * step)
        else:
            try:
                if isinstance(k, (bool, np.bool_)):
                    raise TypeError
                i = operator.index(k)
            except TypeError:
                raise IndexError("device arrays take basic indexing only (integers, slices, ..., None): "
                                 "an index of %s would need a copy" % type(k).__name__) from None
            if i < -n or i >= n:
                raise IndexError("index %d is out of bounds for axis %d with size %d" % (i, axis, n))
            offset += (i % n) * s
        axis += 1
    return offset, tuple(out_shape), tuple(out_strides)
