@_exported import HTTPTestSupport
