import SentioCore
