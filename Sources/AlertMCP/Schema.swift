import JSON

/// The tools' input and output schemas (JSON Schema 2020-12, MCP's default dialect), written as JSON text.
/// `AlertMCPTests` parses every one, and scripts/mcp_test.py checks them with the jsonschema package.
enum Schema {
    /// Parses a schema written in this file; a typo here is a programming error that every test run finds.
    static func parse(_ text: String) -> JSONValue {
        do {
            return try JSONParser.parse(Array(text.utf8))
        } catch {
            fatalError("AlertMCP schema: \(error)\n\(text)")
        }
    }

    static let idProperty = #"{"type": "string", "minLength": 1, "maxLength": 64, "description": "The alert's id."}"#

    static let draftInput = #"""
        {
          "type": "object",
          "properties": {
            "title": {"type": "string", "maxLength": 256, "description": "The question's title."},
            "message": {"type": "string", "maxLength": 4096,
              "description": "More text; title or message must be non-empty."},
            "style": {"type": "string", "enum": ["alert", "actionSheet"],
              "description": "alert (default) or actionSheet (buttons only)."},
            "buttons": {
              "type": "array", "maxItems": 16,
              "description": "Titles or {title, style}; none gives one OK. Index 0 is the cancel button.",
              "items": {
                "anyOf": [
                  {"type": "string", "minLength": 1},
                  {
                    "type": "object",
                    "properties": {
                      "title": {"type": "string", "minLength": 1},
                      "style": {"type": "string", "enum": ["default", "cancel", "destructive"]}
                    },
                    "required": ["title"],
                    "additionalProperties": false
                  }
                ]
              }
            },
            "destructive": {"type": "array", "items": {"type": "string"},
              "description": "Titles of buttons to show as destructive."},
            "fields": {
              "type": "array", "maxItems": 8,
                "description": "Text fields (alert style only); their values come back in order.",
              "items": {
                "type": "object",
                "properties": {
                  "placeholder": {"type": "string"},
                  "text": {"type": "string", "maxLength": 1024, "description": "Initial text."},
                  "secure": {"type": "boolean",
                    "description": "A password-like field: its value is withheld from you."},
                  "keyboard": {"type": "string",
                    "description": "A UIKeyboardType name, such as default, emailAddress, numberPad."}
                },
                "additionalProperties": false
              }
            },
            "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 31536000,
              "description": "Seconds until the alert expires unanswered."},
            "presenter": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$",
              "description": "The screen or queue it is addressed to (default root)."},
            "tag": {"type": "integer", "description": "An integer echoed back."},
            "idempotencyKey": {"type": "string", "pattern": "^[!-~]{1,255}$",
              "description": "Calls with the same key and question create one alert."}
          },
          "additionalProperties": false
        }
        """#

    static let result = #"""
        {
          "type": "object",
          "properties": {
            "buttonIndex": {"type": "integer", "minimum": 0},
            "buttonTitle": {"type": "string"},
            "ok": {"type": "boolean",
              "description": "false when the cancel button was chosen (or it was dismissed or expired)."},
            "values": {"type": "array", "items": {"type": ["string", "null"]},
              "description": "One per field, in order."},
            "resolution": {"type": "string", "enum": ["answered", "dismissed", "expired"]},
            "resolvedAt": {"type": "string", "format": "date-time"},
            "responder": {"type": ["string", "null"], "description": "Who answered (the token's name)."}
          },
          "required": ["buttonIndex", "buttonTitle", "ok", "values", "resolution", "resolvedAt", "responder"]
        }
        """#

    /// `ask`'s output: the Result with the alert's id first.
    static var answer: String {
        let members = #""alertId": {"type": "string"},"#
        let required = #""required": ["alertId", "#
        return result.replacingFirst("\"properties\": {", with: "\"properties\": {\n    " + members)
            .replacingFirst("\"required\": [", with: required)
    }

    static let alert = #"""
        {
          "type": "object",
          "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "message": {"type": "string"},
            "style": {"type": "string", "enum": ["alert", "actionSheet"]},
            "presenter": {"type": "string"},
            "tag": {"type": "integer"},
            "buttons": {
              "type": "array",
              "items": {
                "type": "object",
                "properties": {
                  "index": {"type": "integer"}, "title": {"type": "string"},
                  "style": {"type": "string", "enum": ["default", "cancel", "destructive"]}
                },
                "required": ["index", "title", "style"]
              }
            },
            "fields": {
              "type": "array",
              "items": {
                "type": "object",
                "properties": {
                  "index": {"type": "integer"}, "placeholder": {"type": "string"},
                  "secure": {"type": "boolean"}, "keyboard": {"type": "string"}
                },
                "required": ["index", "placeholder", "secure", "keyboard"]
              }
            },
            "state": {"type": "string", "enum": ["pending", "resolved"]},
            "result": {"anyOf": [{"type": "null"}, \#(result)]},
            "createdAt": {"type": "string", "format": "date-time"},
            "expiresAt": {"type": ["string", "null"], "format": "date-time"}
          },
          "required": ["id", "title", "message", "style", "presenter", "tag", "buttons", "fields", "state", "result",
                       "createdAt", "expiresAt"]
        }
        """#

    static let waitInput = #"""
        {
          "type": "object",
          "properties": {
            "id": \#(idProperty),
            "seconds": {"type": "number", "minimum": 0, "maximum": 3600,
              "description": "How long to wait (default 60)."}
          },
          "required": ["id"],
          "additionalProperties": false
        }
        """#

    static let waitOutput = #"""
        {
          "type": "object",
          "properties": {
            "alertId": {"type": "string"},
            "state": {"type": "string", "enum": ["pending", "resolved"]},
            "result": {"anyOf": [{"type": "null"}, \#(result)]}
          },
          "required": ["alertId", "state", "result"]
        }
        """#

    static let idInput = #"""
        {"type": "object", "properties": {"id": \#(idProperty)}, "required": ["id"], "additionalProperties": false}
        """#

    static let dismissOutput = #"""
        {
          "type": "object",
          "properties": {
            "alertId": {"type": "string"},
            "alreadyResolved": {"type": "boolean",
              "description": "true: it had resolved before; result is the one that won."},
            "result": \#(result)
          },
          "required": ["alertId", "alreadyResolved", "result"]
        }
        """#

    static let listInput = #"""
        {
          "type": "object",
          "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 100,
            "description": "At most this many (default 100)."}},
          "additionalProperties": false
        }
        """#

    static let listOutput = #"""
        {"type": "object", "properties": {"alerts": {"type": "array", "items": \#(alert)}}, "required": ["alerts"]}
        """#

    static let approveInput = #"""
        {
          "type": "object",
          "properties": {
            "tool_name": {"type": "string", "minLength": 1,
              "description": "The tool asking for permission, such as Bash."},
            "input": {"type": "object",
              "description": "Its input, shown to the person and returned unchanged on allow."},
            "tool_use_id": {"type": "string",
              "description": "The call's id: asking again with it makes no second alert."}
          },
          "required": ["tool_name", "input"]
        }
        """#

    static let approveOutput = #"""
        {
          "type": "object",
          "properties": {
            "behavior": {"type": "string", "enum": ["allow", "deny"]},
            "updatedInput": {"type": "object"},
            "message": {"type": "string"}
          },
          "required": ["behavior"]
        }
        """#
}

extension String {
    /// This text with the first `target` replaced (no Foundation in this module).
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var text = self
        text.replaceSubrange(range, with: replacement)
        return text
    }
}
