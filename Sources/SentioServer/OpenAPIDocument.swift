// The OpenAPI 3.1 document of `sentio serve`, compiled into the binary and served at `GET /openapi.json`.
// Resources/openapi.json is the same text (a test checks they agree); edit both together.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Sentio serve API",
    "version": "1.0.0",
    "description": "The signals app's and the LP portal's API over the live engine. Every error is {\"error\": message}. Every response carries Access-Control-Allow-Origin (--cors-origin)."
  },
  "servers": [
    {
      "url": "/"
    }
  ],
  "paths": {
    "/healthz": {
      "get": {
        "summary": "Liveness: 200 once the session is loaded",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Health"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/metrics": {
      "get": {
        "summary": "Prometheus metrics",
        "responses": {
          "200": {
            "description": "Prometheus text exposition",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "summary": "This document",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/": {
      "get": {
        "summary": "The signals dashboard (HTML)",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/static/app.js": {
      "get": {
        "summary": "Dashboard script",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "text/javascript": {
                "schema": {
                  "type": "string"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/static/app.css": {
      "get": {
        "summary": "Dashboard style",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "text/css": {
                "schema": {
                  "type": "string"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/signals": {
      "get": {
        "summary": "Latest signal of every symbol",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/SignalsResponse"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "404": {
            "description": "no data yet",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "429": {
            "description": "rate limited",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            },
            "headers": {
              "Retry-After": {
                "schema": {
                  "type": "integer"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/symbols/{symbol}": {
      "get": {
        "summary": "One symbol: signal and price history",
        "parameters": [
          {
            "name": "symbol",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "timeframe",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "enum": [
                "1D",
                "5D",
                "1M",
                "3M"
              ],
              "default": "1D"
            }
          },
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/SymbolDetail"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "400": {
            "description": "bad timeframe",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "unknown symbol",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "429": {
            "description": "rate limited",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            },
            "headers": {
              "Retry-After": {
                "schema": {
                  "type": "integer"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/portfolio": {
      "get": {
        "summary": "The live account",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Portfolio"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "404": {
            "description": "no data yet",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "429": {
            "description": "rate limited",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            },
            "headers": {
              "Retry-After": {
                "schema": {
                  "type": "integer"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/trades": {
      "get": {
        "summary": "Closed trades",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TradeHistory"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "404": {
            "description": "no data yet",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "429": {
            "description": "rate limited",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            },
            "headers": {
              "Retry-After": {
                "schema": {
                  "type": "integer"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/trades.csv": {
      "get": {
        "summary": "Closed trades as CSV",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "text/csv": {
                "schema": {
                  "type": "string"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "404": {
            "description": "no data yet",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "429": {
            "description": "rate limited",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            },
            "headers": {
              "Retry-After": {
                "schema": {
                  "type": "integer"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/bars": {
      "post": {
        "summary": "Ingest bars (NDJSON or a JSON array); answered once durable",
        "security": [
          {
            "ingestToken": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/x-ndjson": {
              "schema": {
                "type": "string",
                "minLength": 1,
                "description": "one Bar object per line"
              }
            },
            "application/json": {
              "schema": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Bar"
                },
                "minItems": 1
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "per-bar outcome",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/IngestResponse"
                }
              }
            }
          },
          "400": {
            "description": "malformed body (names the line or element and field)",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "missing or wrong ingestion token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "ingestion is off (no token configured)",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "body larger than --max-body",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/ws/signals": {
      "get": {
        "summary": "WebSocket: one signal_update per symbol on connect, then one per new signal (messages: LiveMessage). A client more than the buffer behind is closed with 1008.",
        "responses": {
          "101": {
            "description": "switching protocols"
          },
          "404": {
            "description": "not a WebSocket upgrade",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/dashboard": {
      "get": {
        "summary": "LP dashboard of the caller's funds",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Dashboard"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "401": {
            "description": "missing, invalid or expired token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "no such fund, or no fund data loaded",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "security": [
          {
            "bearerJWT": []
          }
        ]
      }
    },
    "/api/funds": {
      "get": {
        "summary": "The caller's funds",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Fund"
                  }
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "401": {
            "description": "missing, invalid or expired token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "no such fund, or no fund data loaded",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "security": [
          {
            "bearerJWT": []
          }
        ]
      }
    },
    "/api/funds/{id}": {
      "get": {
        "summary": "One fund with documents (404 if not the caller's)",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/FundDetail"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "401": {
            "description": "missing, invalid or expired token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "no such fund, or no fund data loaded",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "security": [
          {
            "bearerJWT": []
          }
        ]
      }
    },
    "/api/funds/{id}/documents": {
      "get": {
        "summary": "One fund's documents",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Document"
                  }
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "401": {
            "description": "missing, invalid or expired token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "no such fund, or no fund data loaded",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "security": [
          {
            "bearerJWT": []
          }
        ]
      }
    },
    "/api/crypto": {
      "get": {
        "summary": "Crypto holdings",
        "parameters": [
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/CryptoHoldingsResponse"
                }
              }
            },
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "strong validator of the body"
              }
            }
          },
          "304": {
            "description": "not modified (If-None-Match)"
          },
          "401": {
            "description": "missing, invalid or expired token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "no such fund, or no fund data loaded",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "description": "method not allowed",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "security": [
          {
            "bearerJWT": []
          }
        ]
      }
    }
  },
  "components": {
    "schemas": {
      "Error": {
        "type": "object",
        "properties": {
          "error": {
            "type": "string"
          }
        },
        "required": [
          "error"
        ],
        "additionalProperties": false
      },
      "SignalType": {
        "type": "string",
        "enum": [
          "BUY",
          "SELL",
          "HOLD"
        ]
      },
      "Signal": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "symbol": {
            "type": "string"
          },
          "timestamp": {
            "type": "string",
            "format": "date-time"
          },
          "price": {
            "type": "number"
          },
          "change": {
            "type": "number"
          },
          "changePercent": {
            "type": "number"
          },
          "signalType": {
            "$ref": "#/components/schemas/SignalType"
          },
          "confidence": {
            "type": "number"
          },
          "targetReturn": {
            "type": "number"
          },
          "stopLoss": {
            "type": "number"
          },
          "profitTarget": {
            "type": "number"
          },
          "aiSignal": {
            "type": "number"
          },
          "rsi": {
            "type": "number"
          },
          "volumeRatio": {
            "type": "number"
          },
          "recommendation": {
            "type": "string"
          },
          "reasoning": {
            "type": "string"
          }
        },
        "required": [
          "id",
          "symbol",
          "timestamp",
          "price",
          "change",
          "changePercent",
          "signalType",
          "confidence",
          "targetReturn",
          "stopLoss",
          "profitTarget",
          "aiSignal",
          "rsi",
          "volumeRatio",
          "recommendation",
          "reasoning"
        ],
        "additionalProperties": false
      },
      "SignalsResponse": {
        "type": "object",
        "properties": {
          "timestamp": {
            "type": "string",
            "format": "date-time"
          },
          "signals": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Signal"
            }
          },
          "warmingUp": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "symbol": {
                  "type": "string"
                },
                "barsRemaining": {
                  "type": "integer"
                }
              },
              "required": [
                "symbol",
                "barsRemaining"
              ],
              "additionalProperties": false
            }
          }
        },
        "required": [
          "timestamp",
          "signals",
          "warmingUp"
        ],
        "additionalProperties": false
      },
      "HistoricalBar": {
        "type": "object",
        "properties": {
          "timestamp": {
            "type": "string",
            "format": "date-time"
          },
          "open": {
            "type": "number"
          },
          "high": {
            "type": "number"
          },
          "low": {
            "type": "number"
          },
          "close": {
            "type": "number"
          },
          "volume": {
            "type": "number"
          }
        },
        "required": [
          "timestamp",
          "open",
          "high",
          "low",
          "close",
          "volume"
        ],
        "additionalProperties": false
      },
      "SymbolDetail": {
        "type": "object",
        "properties": {
          "symbol": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "price": {
            "type": "number"
          },
          "signal": {
            "$ref": "#/components/schemas/Signal"
          },
          "historicalData": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/HistoricalBar"
            }
          }
        },
        "required": [
          "symbol",
          "name",
          "price",
          "signal",
          "historicalData"
        ],
        "additionalProperties": false
      },
      "Position": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "symbol": {
            "type": "string"
          },
          "entryPrice": {
            "type": "number"
          },
          "currentPrice": {
            "type": "number"
          },
          "shares": {
            "type": "integer"
          },
          "entryTime": {
            "type": "string",
            "format": "date-time"
          },
          "pnl": {
            "type": "number"
          },
          "pnlPercent": {
            "type": "number"
          },
          "quantity": {
            "type": "number"
          }
        },
        "required": [
          "id",
          "symbol",
          "entryPrice",
          "currentPrice",
          "shares",
          "entryTime",
          "pnl",
          "pnlPercent"
        ],
        "additionalProperties": false
      },
      "Trade": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "symbol": {
            "type": "string"
          },
          "entryPrice": {
            "type": "number"
          },
          "exitPrice": {
            "type": "number"
          },
          "shares": {
            "type": "integer"
          },
          "entryTime": {
            "type": "string",
            "format": "date-time"
          },
          "exitTime": {
            "type": "string",
            "format": "date-time"
          },
          "pnl": {
            "type": "number"
          },
          "pnlPercent": {
            "type": "number"
          },
          "signalType": {
            "$ref": "#/components/schemas/SignalType"
          },
          "quantity": {
            "type": "number"
          }
        },
        "required": [
          "id",
          "symbol",
          "entryPrice",
          "exitPrice",
          "shares",
          "entryTime",
          "exitTime",
          "pnl",
          "pnlPercent",
          "signalType"
        ],
        "additionalProperties": false
      },
      "Portfolio": {
        "type": "object",
        "properties": {
          "initialCapital": {
            "type": "number"
          },
          "currentValue": {
            "type": "number"
          },
          "cashBalance": {
            "type": "number"
          },
          "totalPnL": {
            "type": "number"
          },
          "totalPnLPercent": {
            "type": "number"
          },
          "dayPnL": {
            "type": "number"
          },
          "dayPnLPercent": {
            "type": "number"
          },
          "positions": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Position"
            }
          },
          "recentTrades": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Trade"
            }
          }
        },
        "required": [
          "initialCapital",
          "currentValue",
          "cashBalance",
          "totalPnL",
          "totalPnLPercent",
          "dayPnL",
          "dayPnLPercent",
          "positions",
          "recentTrades"
        ],
        "additionalProperties": false
      },
      "TradeHistory": {
        "type": "object",
        "properties": {
          "winRate": {
            "type": "number"
          },
          "totalTrades": {
            "type": "integer"
          },
          "trades": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Trade"
            }
          }
        },
        "required": [
          "winRate",
          "totalTrades",
          "trades"
        ],
        "additionalProperties": false
      },
      "LiveMessage": {
        "type": "object",
        "properties": {
          "type": {
            "const": "signal_update"
          },
          "data": {
            "type": "object",
            "properties": {
              "symbol": {
                "type": "string"
              },
              "price": {
                "type": "number"
              },
              "signal": {
                "$ref": "#/components/schemas/Signal"
              }
            },
            "required": [
              "symbol",
              "price",
              "signal"
            ],
            "additionalProperties": false
          }
        },
        "required": [
          "type",
          "data"
        ],
        "additionalProperties": false
      },
      "IngestResponse": {
        "type": "object",
        "properties": {
          "accepted": {
            "type": "integer"
          },
          "duplicates": {
            "type": "integer"
          },
          "rejected": {
            "type": "integer"
          },
          "results": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "index": {
                  "type": "integer"
                },
                "status": {
                  "type": "string",
                  "enum": [
                    "accepted",
                    "duplicate",
                    "rejected"
                  ]
                },
                "reason": {
                  "type": "string"
                },
                "message": {
                  "type": "string"
                }
              },
              "required": [
                "index",
                "status"
              ],
              "additionalProperties": false
            }
          }
        },
        "required": [
          "accepted",
          "duplicates",
          "rejected",
          "results"
        ],
        "additionalProperties": false
      },
      "Bar": {
        "type": "object",
        "properties": {
          "symbol": {
            "type": "string",
            "minLength": 1
          },
          "timestamp": {
            "type": "string",
            "minLength": 1
          },
          "open": {
            "type": "number",
            "exclusiveMinimum": 0
          },
          "high": {
            "type": "number",
            "exclusiveMinimum": 0
          },
          "low": {
            "type": "number",
            "exclusiveMinimum": 0
          },
          "close": {
            "type": "number",
            "exclusiveMinimum": 0
          },
          "volume": {
            "type": "number",
            "minimum": 0
          }
        },
        "required": [
          "symbol",
          "timestamp",
          "open",
          "high",
          "low",
          "close",
          "volume"
        ],
        "additionalProperties": false,
        "description": "One bar. Also required (not expressible here): high >= max(open, close), low <= min(open, close), a timestamp the OHLCV reader accepts (e.g. 2024-01-02 or 2024-01-02T14:31:00Z)."
      },
      "Health": {
        "type": "object",
        "properties": {
          "status": {
            "type": "string"
          }
        },
        "required": [
          "status"
        ],
        "additionalProperties": false
      },
      "NAVPoint": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "date": {
            "type": "string",
            "format": "date-time"
          },
          "nav": {
            "type": "number"
          }
        },
        "required": [
          "id",
          "date",
          "nav"
        ],
        "additionalProperties": false
      },
      "Fund": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "domicile": {
            "type": "string"
          },
          "vintage": {
            "type": "integer"
          },
          "manager": {
            "type": "string"
          },
          "commitment": {
            "type": "number"
          },
          "paidIn": {
            "type": "number"
          },
          "nav": {
            "type": "number"
          },
          "irr": {
            "type": "number"
          },
          "tvpi": {
            "type": "number"
          },
          "dpi": {
            "type": "number"
          },
          "lastReportDate": {
            "type": "string",
            "format": "date-time"
          },
          "navHistory": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/NAVPoint"
            }
          }
        },
        "required": [
          "id",
          "name",
          "domicile",
          "vintage",
          "manager",
          "commitment",
          "paidIn",
          "nav",
          "irr",
          "tvpi",
          "dpi",
          "lastReportDate",
          "navHistory"
        ],
        "additionalProperties": false
      },
      "Document": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "type": {
            "type": "string",
            "enum": [
              "CAPITAL_CALL",
              "QUARTERLY_REPORT",
              "ANNUAL_REPORT",
              "KYC",
              "COMPLIANCE",
              "OTHER"
            ]
          },
          "title": {
            "type": "string"
          },
          "uploadDate": {
            "type": "string",
            "format": "date-time"
          },
          "dueDate": {
            "type": [
              "string",
              "null"
            ],
            "format": "date-time"
          },
          "callAmount": {
            "type": [
              "number",
              "null"
            ]
          },
          "paymentStatus": {
            "type": [
              "string",
              "null"
            ],
            "enum": [
              "PENDING",
              "PAID",
              "LATE",
              "OVERDUE",
              null
            ]
          },
          "url": {
            "type": [
              "string",
              "null"
            ]
          },
          "parsedData": {
            "type": "object",
            "additionalProperties": {
              "type": "string"
            }
          }
        },
        "required": [
          "id",
          "type",
          "title",
          "uploadDate",
          "parsedData"
        ],
        "additionalProperties": false
      },
      "PortfolioSummary": {
        "type": "object",
        "properties": {
          "totalCommitment": {
            "type": "number"
          },
          "totalNav": {
            "type": "number"
          },
          "portfolioTvpi": {
            "type": "number"
          },
          "activeCapitalCalls": {
            "type": "integer"
          }
        },
        "required": [
          "totalCommitment",
          "totalNav",
          "portfolioTvpi",
          "activeCapitalCalls"
        ],
        "additionalProperties": false
      },
      "CryptoHolding": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "symbol": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "amount": {
            "type": "number"
          },
          "valueUsd": {
            "type": "number"
          }
        },
        "required": [
          "id",
          "symbol",
          "name",
          "amount",
          "valueUsd"
        ],
        "additionalProperties": false
      },
      "CryptoHoldingsResponse": {
        "type": "object",
        "properties": {
          "holdings": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/CryptoHolding"
            }
          },
          "totalValue": {
            "type": "number"
          }
        },
        "required": [
          "holdings",
          "totalValue"
        ],
        "additionalProperties": false
      },
      "Dashboard": {
        "type": "object",
        "properties": {
          "portfolioSummary": {
            "$ref": "#/components/schemas/PortfolioSummary"
          },
          "funds": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Fund"
            }
          },
          "cryptoHoldings": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/CryptoHolding"
            }
          }
        },
        "required": [
          "portfolioSummary",
          "funds",
          "cryptoHoldings"
        ],
        "additionalProperties": false
      },
      "FundDetail": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "domicile": {
            "type": "string"
          },
          "vintage": {
            "type": "integer"
          },
          "manager": {
            "type": "string"
          },
          "commitment": {
            "type": "number"
          },
          "paidIn": {
            "type": "number"
          },
          "nav": {
            "type": "number"
          },
          "irr": {
            "type": "number"
          },
          "tvpi": {
            "type": "number"
          },
          "dpi": {
            "type": "number"
          },
          "lastReportDate": {
            "type": "string",
            "format": "date-time"
          },
          "navHistory": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/NAVPoint"
            }
          },
          "documents": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Document"
            }
          }
        },
        "required": [
          "id",
          "name",
          "domicile",
          "vintage",
          "manager",
          "commitment",
          "paidIn",
          "nav",
          "irr",
          "tvpi",
          "dpi",
          "lastReportDate",
          "navHistory",
          "documents"
        ],
        "additionalProperties": false
      }
    },
    "securitySchemes": {
      "bearerJWT": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "HS256 with SENTIO_JWT_SECRET; claims sub, exp, role USER|ADMIN|DATA_MANAGER"
      },
      "ingestToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "SENTIO_INGEST_TOKEN"
      }
    }
  }
}
"""#
}
