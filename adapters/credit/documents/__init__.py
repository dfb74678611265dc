"""Financial statements as analysts receive them: Excel workbooks and text tables out of PDFs.

`write_workbook` / `read_workbook` handle the `.xlsx` side (openpyxl); `render_text` /
`parse_text` the PDF-extracted side, where `noise` adds the OCR damage real extractions carry.
Both readers give back `ParsedStatement`s: the periods with their figures, and the findings
(values repaired exactly, values that may be wrong); a value that cannot be read at all raises
`DocumentError` naming its cell or line.
"""

from adapters.credit.documents.errors import DocumentError
from adapters.credit.documents.findings import Finding, ParsedStatement
from adapters.credit.documents.layout import LINES, STATEMENT_TITLES, LineSpec, StatementKind
from adapters.credit.documents.model import Period, Statement
from adapters.credit.documents.noise import NoiseConfig
from adapters.credit.documents.text_table import parse_text, render_text
from adapters.credit.documents.workbook import read_workbook, write_workbook

__all__ = [
    "LINES",
    "STATEMENT_TITLES",
    "DocumentError",
    "Finding",
    "LineSpec",
    "NoiseConfig",
    "ParsedStatement",
    "Period",
    "Statement",
    "StatementKind",
    "parse_text",
    "read_workbook",
    "render_text",
    "write_workbook",
]
