enum API { static var spec: String { EmbeddedOpenAPI.text } }
