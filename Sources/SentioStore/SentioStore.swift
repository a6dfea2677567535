import SentioCore
import GRDB
