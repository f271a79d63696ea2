"""Arrays without reference counting for the kernels: ``readonly_row``, a read-only row view for handing
a kernel's table rows to policies (``readonly``, the same for a whole 1-D array), ``stack_zeros``,
scratch on a kernel's own stack, and ``copy_into``, an array copy that compiles in milliseconds.

A Numba row view (``table[i]``) shares its parent's memory and so carries the parent's meminfo:
making one and dropping it are two atomic reference-count updates per policy call (measured: a
tenth of a L.A.M.A. kernel's time). ``readonly_row`` makes the view without a meminfo, as
``numba.carray`` does over a pointer, so it costs a few register moves; its type is read-only, so a
policy that writes to it does not compile. It is valid while ``table`` is alive: kernels make it at
the call and never keep it.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _readonly_view(context, builder, view_type, data, length, stride, itemsize):
    """The value of a read-only 1-D array of ``view_type`` over ``data``, without a meminfo."""
    out = context.make_array(view_type)(context, builder)
    context.populate_array(out, data=data, shape=cgutils.pack_array(builder, [length]),
                           strides=cgutils.pack_array(builder, [stride]), itemsize=itemsize, meminfo=None)
    return out._getvalue()


@intrinsic
def readonly_row(typingctx, table, i):
    """``table[i]`` of a C-contiguous 2-D array as a read-only 1-D C array without a meminfo."""
    if not isinstance(table, types.Array) or table.ndim != 2 or table.layout != "C":
        return None
    row_type = types.Array(table.dtype, 1, "C", readonly=True)

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        shape = cgutils.unpack_tuple(builder, src.shape, 2)
        strides = cgutils.unpack_tuple(builder, src.strides, 2)
        index = context.cast(builder, args[1], sig.args[1], types.intp)
        return _readonly_view(context, builder, row_type, builder.gep(src.data, [builder.mul(index, shape[1])]),
                              shape[1], strides[1], src.itemsize)

    return row_type(table, i), codegen


@intrinsic
def readonly(typingctx, array):
    """A C-contiguous 1-D array as a read-only one, without a meminfo (as ``readonly_row``): a policy
    called with it is called with the types a kernel's function tuple gives, so its one compiled
    version serves every caller."""
    if not isinstance(array, types.Array) or array.ndim != 1 or array.layout != "C":
        return None
    view_type = types.Array(array.dtype, 1, "C", readonly=True)

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        (length,) = cgutils.unpack_tuple(builder, src.shape, 1)
        (stride,) = cgutils.unpack_tuple(builder, src.strides, 1)
        return _readonly_view(context, builder, view_type, src.data, length, stride, src.itemsize)

    return view_type(array), codegen


# Every stack array starts on a cache line. Why: where the compiler puts each buffer in the frame follows
# from the number, sizes and order of all of them, so resizing or adding one array anywhere in a block loop
# could move another rule set's hot arrays across line boundaries, a loss of speed that comes and goes by
# chance (``benchmarks/before_after.py`` measures it); at one line per buffer start, it cannot.
STACK_ALIGN = 64


@intrinsic
def stack_zeros(typingctx, capacity, shape, dtype):
    """A zeroed C-contiguous array of ``shape`` on the calling function's stack, in a buffer of
    ``capacity`` elements (a literal): no meminfo, no allocation, freed when the function returns.

    Why: the shedding kernels' block loop runs without reference counting (``draws.NO_NRT``), where it
    cannot allocate; its scratch arrays handed in as arguments could alias one another as far as the
    compiler knows, so every write to one reloaded the others (``benchmarks/MEASUREMENTS.md``). Arrays
    on the function's own stack are known to be distinct. The caller keeps ``prod(shape) <= capacity`` and never lets the array
    outlive the function (it is neither returned nor stored)."""
    if not isinstance(capacity, types.IntegerLiteral) or not isinstance(dtype, types.NumberClass):
        return None
    if isinstance(shape, types.Integer):
        dim_types = [shape]
    elif isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape.types):
        dim_types = list(shape.types)
    else:
        return None
    elem = dtype.instance_type
    array_type = types.Array(elem, len(dim_types), "C")

    def codegen(context, builder, sig, args):
        size = capacity.literal_value
        ll_elem = context.get_data_type(elem)
        itemsize = context.get_abi_sizeof(ll_elem)
        buffer = cgutils.alloca_once(builder, ir.ArrayType(ll_elem, size))  # in the entry block, once
        buffer.align = STACK_ALIGN
        data = builder.bitcast(buffer, ll_elem.as_pointer())
        cgutils.memset(builder, data, context.get_constant(types.intp, size * itemsize), 0)
        if isinstance(shape, types.Integer):
            dims = [args[1]]
        else:
            dims = cgutils.unpack_tuple(builder, args[1], len(dim_types))
        dims = [context.cast(builder, d, t, types.intp) for d, t in zip(dims, dim_types)]
        strides = []
        stride = context.get_constant(types.intp, itemsize)
        for d in reversed(dims):
            strides.insert(0, stride)
            stride = builder.mul(stride, d)
        out = context.make_array(array_type)(context, builder)
        context.populate_array(out, data=data, shape=cgutils.pack_array(builder, dims),
                               strides=cgutils.pack_array(builder, strides),
                               itemsize=context.get_constant(types.intp, itemsize), meminfo=None)
        return out._getvalue()

    return array_type(capacity, shape, dtype), codegen


@intrinsic
def copy_into(typingctx, dst, src):
    """``dst[...] = src`` for two C-contiguous arrays of one dtype and one shape (the caller's promise:
    nothing is checked), as a ``memcpy``.

    Why not the slice assignment: Numba compiles ``a[:] = b`` with a broadcast check whose error
    message builder costs seconds of compile in each new process (``benchmarks/MEASUREMENTS.md``);
    every kernel that restores a position for each roll-out paid it on its first run."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.layout == "C"
            and src.layout == "C" and dst.dtype == src.dtype and dst.ndim == src.ndim and dst.mutable):
        return None

    def codegen(context, builder, sig, args):
        out = context.make_array(sig.args[0])(context, builder, args[0])
        source = context.make_array(sig.args[1])(context, builder, args[1])
        count = context.get_constant(types.intp, 1)
        for d in cgutils.unpack_tuple(builder, out.shape, dst.ndim):
            count = builder.mul(count, d)
        cgutils.raw_memcpy(builder, out.data, source.data, count, out.itemsize)
        return context.get_dummy_value()

    return types.none(dst, src), codegen
