"""Write `types/schema.d.ts` (the web client's types) from the repository's `schema.graphql`.

Run `python games/webclient/generate_types.py` after `make schema`; a test compares the
committed file with a fresh run (tests/api/test_webclient_types.py).
"""

from pathlib import Path

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLUnionType,
    build_schema,
)

HERE = Path(__file__).resolve().parent
SCHEMA = HERE.parent.parent / "schema.graphql"
OUTPUT = HERE / "types" / "schema.d.ts"

SCALARS = {"ID": "string", "String": "string", "Int": "number", "Float": "number",
           "Boolean": "boolean", "DateTime": "string", "JSON": "any"}


def _ts(type_, *, nullable=True):
    if isinstance(type_, GraphQLNonNull):
        return _ts(type_.of_type, nullable=False)
    if isinstance(type_, GraphQLList):
        inner = f"Array<{_ts(type_.of_type)}>"
    elif isinstance(type_, GraphQLScalarType):
        inner = SCALARS.get(type_.name, "any")
    else:
        inner = type_.name
    return f"{inner} | null" if nullable else inner


def _doc(description, indent=""):
    if not description:
        return []
    text = " ".join(description.split()).replace("*/", "* /")
    return [f"{indent}/** {text} */"]


def render(sdl: str) -> str:
    schema = build_schema(sdl)
    lines = ["// Generated from schema.graphql by games/webclient/generate_types.py: do not edit.", ""]
    for name in sorted(schema.type_map):
        if name.startswith("__"):
            continue
        type_ = schema.type_map[name]
        if isinstance(type_, GraphQLScalarType):
            if name not in SCALARS:
                lines += [*_doc(type_.description), f"export type {name} = any;", ""]
            continue
        lines += _doc(type_.description)
        if isinstance(type_, GraphQLEnumType):
            values = " | ".join(f'"{v}"' for v in type_.values)
            lines += [f"export type {name} = {values};", ""]
        elif isinstance(type_, GraphQLUnionType):
            members = " | ".join(t.name for t in type_.types)
            lines += [f"export type {name} = {members};", ""]
        elif isinstance(type_, (GraphQLObjectType, GraphQLInterfaceType)):
            lines.append(f"export interface {name} {{")
            if isinstance(type_, GraphQLObjectType):
                lines.append(f'  __typename?: "{name}";')
            for field_name, field in type_.fields.items():
                lines += _doc(field.description, "  ")
                lines.append(f"  {field_name}: {_ts(field.type)};")
            lines += ["}", ""]
        elif isinstance(type_, GraphQLInputObjectType):
            lines.append(f"export interface {name} {{")
            for field_name, field in type_.fields.items():
                optional = not isinstance(field.type, GraphQLNonNull) or field.default_value is not None
                lines += _doc(field.description, "  ")
                lines.append(f"  {field_name}{'?' if optional else ''}: {_ts(field.type)};")
            lines += ["}", ""]
    return "\n".join(lines).rstrip() + "\n"


def main():
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(render(SCHEMA.read_text()))
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
