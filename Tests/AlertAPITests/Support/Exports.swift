@_exported import AlertServer
@_exported import HTTPTestSupport
