// The SDK's declared types against the API's OpenAPI document: a field renamed, added, removed,
// made optional or nullable in the API fails here. No server needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import ts from "typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
const sdk = path.resolve(here, "..");
const openapiPath = path.resolve(sdk, "../../api-server/src/main/resources/io/punctual/api/openapi/openapi.json");
const openapi = JSON.parse(readFileSync(openapiPath, "utf8"));
const schemas = openapi.components.schemas;

/** index.d.ts interface -> the schema it mirrors (the same name unless given). */
const SCHEMAS = {
  Job: "Job",
  JobDependency: "JobDependency",
  JobProgress: "JobProgress",
  JobRequest: "JobRequest",
  Dependency: "Dependency",
  Callback: "Callback",
  ExponentialBackoff: "ExponentialBackoff",
  FixedBackoff: "FixedBackoff",
  IntervalsBackoff: "IntervalsBackoff",
  Execution: "Execution",
  LogLine: "LogLine",
  LogPage: "LogPage",
  Workflow: "Workflow",
  WorkflowStep: "WorkflowStep",
  WorkflowRequest: "WorkflowRequest",
  WorkflowStepRequest: "WorkflowStepRequest",
  StepDependency: "StepDependency",
  FieldError: "FieldError",
  ProblemDetails: "Problem",
  WorkerRegistration: "WorkerRegistration",
  RegisteredWorker: "RegisteredWorker",
  ClaimRequest: "ClaimRequest",
  ClaimedAttempt: "ClaimedAttempt",
  ClaimedAttempts: "ClaimedAttempts",
  HeartbeatRequest: "HeartbeatRequest",
  HeartbeatAttempt: "HeartbeatAttempt",
  ProgressReport: "ProgressReport",
  StopAttempt: "StopAttempt",
  HeartbeatAnswer: "HeartbeatAnswer",
  CompletionRequest: "CompletionRequest",
  FollowUpRequest: "FollowUpRequest",
  CompletedAttempt: "CompletedAttempt",
};

/** Answer fields the API leaves out at times, so declared optional (`?`) here. */
const SOMETIMES_ABSENT = new Set(["Job.dependsOn", "Job.progress"]);

/** interface name -> { prop -> { optional, nullable } }, read from index.d.ts. */
function declaredInterfaces() {
  const file = path.join(sdk, "index.d.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const out = {};
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    const props = {};
    for (const m of node.members) {
      if (!ts.isPropertySignature(m)) continue;
      const type = m.type;
      const nullable =
        !!type &&
        ts.isUnionTypeNode(type) &&
        type.types.some((t) => ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword);
      props[m.name.getText(source)] = { optional: !!m.questionToken, nullable };
    }
    out[node.name.text] = props;
  });
  return out;
}

function schemaNullable(prop) {
  const types = Array.isArray(prop.type) ? prop.type : [prop.type];
  if (types.includes("null")) return true;
  return (prop.oneOf ?? prop.anyOf ?? []).some((s) => s.type === "null");
}

const declared = declaredInterfaces();

test("every mapped interface exists in index.d.ts and every schema in openapi.json", () => {
  for (const [iface, schema] of Object.entries(SCHEMAS)) {
    assert.ok(declared[iface], `index.d.ts declares no interface ${iface}`);
    assert.ok(schemas[schema], `openapi.json has no schema ${schema}`);
  }
});

for (const [iface, schemaName] of Object.entries(SCHEMAS)) {
  test(`${iface} has the fields of schema ${schemaName}`, () => {
    const schema = schemas[schemaName];
    const props = declared[iface];
    assert.deepEqual(Object.keys(props).sort(), Object.keys(schema.properties).sort(), `${iface} vs ${schemaName}: field names`);

    const isRequest = "x-punctual-fields" in schema; // a body the API reads
    const required = new Set(schema.required ?? []);
    for (const [name, { optional, nullable }] of Object.entries(props)) {
      const prop = schema.properties[name];
      if (isRequest || schemaName === "Problem") {
        // What the API requires is required here; the rest optional.
        assert.equal(optional, !required.has(name), `${iface}.${name}: optional here must mean not required in ${schemaName}`);
      } else {
        // An answer: every field present unless known to be left out; null where the API says.
        assert.equal(optional, SOMETIMES_ABSENT.has(`${iface}.${name}`), `${iface}.${name}: only fields left out at times are optional`);
        if (!("$ref" in prop) && prop.type !== undefined) {
          assert.equal(nullable, schemaNullable(prop), `${iface}.${name}: nullable here must match ${schemaName}`);
        } else if (prop.oneOf) {
          assert.equal(nullable, schemaNullable(prop), `${iface}.${name}: nullable here must match ${schemaName}`);
        }
      }
    }
  });
}

test("the worker protocol routes the SDK calls are in openapi.json, with the verbs it uses", () => {
  const used = {
    "/api/v1/workers": "post",
    "/api/v1/workers/{id}": "delete",
    "/api/v1/workers/{id}/claim": "post",
    "/api/v1/workers/{id}/heartbeat": "post",
    "/api/v1/workers/{id}/complete": "post",
    "/api/v1/jobs": "post",
    "/api/v1/jobs/batch": "post",
    "/api/v1/jobs/{id}": "get",
    "/api/v1/jobs/{id}/cancel": "post",
    "/api/v1/jobs/{id}/executions": "get",
    "/api/v1/jobs/{id}/logs": "get",
    "/api/v1/workflows": "post",
    "/api/v1/workflows/{id}": "get",
    "/api/v1/workflows/{id}/cancel": "post",
  };
  for (const [route, verb] of Object.entries(used)) {
    assert.ok(openapi.paths[route]?.[verb], `openapi.json has no ${verb.toUpperCase()} ${route}`);
  }
  const logParams = openapi.paths["/api/v1/jobs/{id}/logs"].get.parameters.map((p) => p.name).filter(Boolean);
  for (const q of ["attempt", "after", "limit"]) assert.ok(logParams.includes(q), `logs takes no ${q}`);
});

test("the declarations type-check, with the README's example (tsc --noEmit)", () => {
  const tsc = path.join(sdk, "node_modules", "typescript", "bin", "tsc");
  execFileSync(process.execPath, [tsc, "-p", path.join(sdk, "tsconfig.json")], { cwd: sdk, stdio: "pipe" });
});

/** The string literals of a `type X = "a" | "b"` alias of index.d.ts. */
function declaredUnion(name) {
  const file = path.join(sdk, "index.d.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  let values = null;
  source.forEachChild((node) => {
    if (ts.isTypeAliasDeclaration(node) && node.name.text === name && ts.isUnionTypeNode(node.type)) {
      values = node.type.types.filter(ts.isLiteralTypeNode).map((t) => t.literal.text);
    }
  });
  assert.ok(values, `index.d.ts declares no union type ${name}`);
  return values;
}

test("the enums: every job status, priority and run condition the API names is declared", () => {
  // A superset for statuses: BLOCKED is a status the API answers (docs/state-machine.md) that the
  // schema's enum does not list.
  const statuses = declaredUnion("JobStatus");
  for (const s of schemas.Job.properties.status.enum) assert.ok(statuses.includes(s), `JobStatus lacks ${s}`);
  assert.deepEqual(declaredUnion("Priority").sort(), [...schemas.JobRequest.properties.priority.enum].sort());
  assert.deepEqual(declaredUnion("RunCondition").sort(), [...schemas.JobRequest.properties.runCondition.enum].sort());
});
