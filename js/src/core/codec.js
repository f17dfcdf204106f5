// Binary arrays across the comm: the twin of tbnb/board/codec.py.
//
// In message content an array is a placeholder {buffer: i, dtype, shape} and its bytes are
// buffers[i] (anywidget hands them over as DataViews, often into one shared ArrayBuffer at some
// byteOffset). Bytes are little-endian, C order. decode() turns placeholders into typed arrays
// (with the shape attached as a non-enumerable `shape` property); encode() does the reverse.

const TYPES = {
  float64: Float64Array,
  float32: Float32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array,
};

/** The dtype name of a typed array (the reverse of TYPES; bool is not guessed). */
export function dtypeOf(array) {
  for (const [name, Type] of Object.entries(TYPES)) {
    if (array instanceof Type) return name;
  }
  throw new TypeError(`not a supported typed array: ${Object.prototype.toString.call(array)}`);
}

function isPlaceholder(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Number.isInteger(value.buffer) &&
    typeof value.dtype === "string" &&
    (value.shape === undefined || Array.isArray(value.shape))
  );
}

function isPlainObject(value) {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function withShape(array, shape) {
  Object.defineProperty(array, "shape", { value: shape, writable: true, configurable: true });
  return array;
}

/** A typed array of `dtype` over the bytes of `buffer` (DataView, any ArrayBufferView or ArrayBuffer). */
export function toTypedArray(buffer, dtype, shape) {
  const Type = TYPES[dtype];
  if (!Type) throw new TypeError(`unsupported dtype ${JSON.stringify(dtype)}`);
  let bytes, offset, length;
  if (buffer instanceof ArrayBuffer) {
    [bytes, offset, length] = [buffer, 0, buffer.byteLength];
  } else if (ArrayBuffer.isView(buffer)) {
    [bytes, offset, length] = [buffer.buffer, buffer.byteOffset, buffer.byteLength];
  } else {
    throw new TypeError("a binary buffer is missing or is not an ArrayBuffer/DataView");
  }
  const size = Type.BYTES_PER_ELEMENT;
  if (length % size !== 0) {
    throw new RangeError(`${length} bytes is not a whole number of ${dtype} items`);
  }
  const n = length / size;
  const dims = shape === undefined ? [n] : shape.map(Number);
  const expected = dims.reduce((a, b) => a * b, 1);
  if (expected !== n) {
    throw new RangeError(`shape [${dims}] needs ${expected} items, the buffer holds ${n}`);
  }
  // A typed array view needs an aligned offset; copy the bytes when they are not aligned.
  const array =
    offset % size === 0
      ? new Type(bytes, offset, n)
      : new Type(bytes.slice(offset, offset + length));
  return withShape(array, dims);
}

/** Content with every placeholder replaced by a typed array (a new structure; input untouched). */
export function decode(content, buffers = []) {
  const walk = (value) => {
    if (Array.isArray(value)) return value.map(walk);
    if (isPlaceholder(value)) {
      if (value.buffer < 0 || value.buffer >= buffers.length) {
        throw new RangeError(`placeholder names buffer ${value.buffer}, ${buffers.length} arrived`);
      }
      return toTypedArray(buffers[value.buffer], value.dtype, value.shape);
    }
    if (isPlainObject(value)) {
      const out = {};
      for (const [key, item] of Object.entries(value)) out[key] = walk(item);
      return out;
    }
    return value;
  };
  return walk(content);
}

/** {content, buffers}: every typed array in `content` becomes a placeholder and a DataView. */
export function encode(content) {
  const buffers = [];
  const walk = (value) => {
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const placeholder = {
        buffer: buffers.length,
        dtype: dtypeOf(value),
        shape: Array.isArray(value.shape) ? value.shape.slice() : [value.length],
      };
      buffers.push(new DataView(value.buffer, value.byteOffset, value.byteLength));
      return placeholder;
    }
    if (Array.isArray(value)) return value.map(walk);
    if (isPlainObject(value)) {
      const out = {};
      for (const [key, item] of Object.entries(value)) out[key] = walk(item);
      return out;
    }
    return value;
  };
  return { content: walk(content), buffers };
}

/** Plain numbers for plotting: int64/uint64 arrays become Float64Array (exact below 2**53). */
export function toNumbers(array) {
  if (array == null) return new Float64Array(0);
  if (array instanceof Float64Array) return array;
  const out = new Float64Array(array.length);
  for (let i = 0; i < array.length; i++) out[i] = Number(array[i]);
  return out;
}
