from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ScalarPluginData(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class HistogramPluginData(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class ImagePluginData(_message.Message):
    __slots__ = ("version", "converted_to_tensor")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CONVERTED_TO_TENSOR_FIELD_NUMBER: _ClassVar[int]
    version: int
    converted_to_tensor: bool
    def __init__(self, version: _Optional[int] = ..., converted_to_tensor: bool = ...) -> None: ...

class AudioPluginData(_message.Message):
    __slots__ = ("version", "encoding", "converted_to_tensor")
    class Encoding(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[AudioPluginData.Encoding]
        WAV: _ClassVar[AudioPluginData.Encoding]
    UNKNOWN: AudioPluginData.Encoding
    WAV: AudioPluginData.Encoding
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ENCODING_FIELD_NUMBER: _ClassVar[int]
    CONVERTED_TO_TENSOR_FIELD_NUMBER: _ClassVar[int]
    version: int
    encoding: AudioPluginData.Encoding
    converted_to_tensor: bool
    def __init__(self, version: _Optional[int] = ..., encoding: _Optional[_Union[AudioPluginData.Encoding, str]] = ..., converted_to_tensor: bool = ...) -> None: ...

class TextPluginData(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class PrCurvePluginData(_message.Message):
    __slots__ = ("version", "num_thresholds")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NUM_THRESHOLDS_FIELD_NUMBER: _ClassVar[int]
    version: int
    num_thresholds: int
    def __init__(self, version: _Optional[int] = ..., num_thresholds: _Optional[int] = ...) -> None: ...

class MeshPluginData(_message.Message):
    __slots__ = ("version", "name", "content_type", "json_config", "shape", "components")
    class ContentType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNDEFINED: _ClassVar[MeshPluginData.ContentType]
        VERTEX: _ClassVar[MeshPluginData.ContentType]
        FACE: _ClassVar[MeshPluginData.ContentType]
        COLOR: _ClassVar[MeshPluginData.ContentType]
    UNDEFINED: MeshPluginData.ContentType
    VERTEX: MeshPluginData.ContentType
    FACE: MeshPluginData.ContentType
    COLOR: MeshPluginData.ContentType
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    JSON_CONFIG_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    version: int
    name: str
    content_type: MeshPluginData.ContentType
    json_config: str
    shape: _containers.RepeatedScalarFieldContainer[int]
    components: int
    def __init__(self, version: _Optional[int] = ..., name: _Optional[str] = ..., content_type: _Optional[_Union[MeshPluginData.ContentType, str]] = ..., json_config: _Optional[str] = ..., shape: _Optional[_Iterable[int]] = ..., components: _Optional[int] = ...) -> None: ...
