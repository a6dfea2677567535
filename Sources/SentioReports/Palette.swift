/// The colour roles of the report palette. Each maps to a CSS custom property, so the dark variant
/// (`prefers-color-scheme: dark`) only redefines the properties.
public enum Tone: String, Sendable, CaseIterable {
    /// #3B82F6, the main series.
    case accent
    /// #10B981, gains, distributions, entries.
    case positive
    /// #EF4444, losses, calls, stops.
    case negative
    /// Slate #64748B, benchmarks and secondary series.
    case neutral
    /// Slate #94A3B8, faint context.
    case muted
    /// Amber #D97706, stop-loss exits and stop levels (distinct from losses).
    case warning
}

/// The report stylesheet: palette in light and dark variants, layout, tables, charts. Plain CSS, no fonts
/// fetched (system font stacks only).
let reportStyleSheet = """
:root{--accent:#3B82F6;--positive:#10B981;--negative:#EF4444;--neutral:#64748B;--muted:#94A3B8;--warning:#D97706;\
--bg:#FFFFFF;--panel:#F8FAFC;--text:#0F172A;--subtle:#475569;--grid:#E2E8F0;--axis:#94A3B8;\
--pos-bg:#D1FAE5;--neg-bg:#FEE2E2;color-scheme:light dark}
@media (prefers-color-scheme: dark){:root{--accent:#60A5FA;--positive:#34D399;--negative:#F87171;\
--neutral:#94A3B8;--muted:#64748B;--warning:#FBBF24;--bg:#0F172A;--panel:#1E293B;--text:#E2E8F0;--subtle:#94A3B8;\
--grid:#334155;--axis:#64748B;--pos-bg:#064E3B;--neg-bg:#7F1D1D}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:18px;margin:32px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--grid)}
h3{font-size:15px;margin:22px 0 8px}
p.lead{color:var(--subtle);margin:0 0 16px}
p.note{color:var(--subtle);font-size:12px;margin:2px 0 12px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;margin:12px 0}
.card{background:var(--panel);border:1px solid var(--grid);border-radius:8px;padding:8px 12px}
.card dt{color:var(--subtle);font-size:12px}
.card dd{margin:2px 0 0;font-size:18px;font-weight:600;font-variant-numeric:tabular-nums}
.card dd.pos{color:var(--positive)}.card dd.neg{color:var(--negative)}
figure{margin:8px 0 4px;background:var(--panel);border:1px solid var(--grid);border-radius:8px;padding:6px}
figure svg{display:block;width:100%;height:auto}
figcaption{color:var(--subtle);font-size:12px;padding:2px 8px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px;margin:6px 0}
th,td{padding:4px 8px;text-align:right;border-bottom:1px solid var(--grid);white-space:nowrap}
th{color:var(--subtle);font-weight:600}
td.text,th.text{text-align:left}
td.pos{color:var(--positive)}td.neg{color:var(--negative)}
table.heat td.pos{background:var(--pos-bg);color:var(--text)}
table.heat td.neg{background:var(--neg-bg);color:var(--text)}
.scroll{overflow-x:auto}
.badge{display:inline-block;padding:0 6px;border-radius:4px;font-size:11px;font-weight:600;border:1px solid currentColor}
.badge.paid{color:var(--positive)}.badge.pending{color:var(--accent)}.badge.late,.badge.overdue{color:var(--negative)}
svg text{fill:var(--subtle);font-size:11px;font-family:inherit}
svg text.title{fill:var(--text);font-size:14px;font-weight:600}
svg .grid{stroke:var(--grid);stroke-width:1}
svg .axis{stroke:var(--axis);stroke-width:1}
svg .zero{stroke:var(--axis);stroke-width:1;stroke-dasharray:3 3}
svg .series{fill:none;stroke-width:1.6;stroke-linejoin:round}
svg .series.dashed{stroke-dasharray:6 4}
svg .area{stroke:none;opacity:.25}
svg .level{stroke-width:1.2;stroke-dasharray:4 3}
svg .bar{stroke:none}
svg .band{fill:var(--muted);opacity:.15;stroke:none}
svg text.band-label{font-size:10px}
.warnings{border:1px solid var(--warning);border-radius:8px;padding:6px 12px;margin:10px 0}
.warnings li{color:var(--text)}
""" + Tone.allCases.map { t in
    "svg .\(t.rawValue){stroke:var(--\(t.rawValue))}svg .area.\(t.rawValue),svg .marker.\(t.rawValue),"
        + "svg .bar.\(t.rawValue),svg .swatch.\(t.rawValue){fill:var(--\(t.rawValue))}"
}.joined(separator: "\n") + "\n"
