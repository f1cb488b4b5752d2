// The hand-written declarations cannot drift from the code: every value
// each module exports at run time is declared in its .d.ts and every value
// declared there is exported (a class as a class, a function as a function
// taking at least the parameters it reads), and each exported class has
// exactly the methods, static and not, its declaration lists, and the
// properties declared are there on an instance.  The .d.ts files are read
// with TypeScript's parser; the modules are imported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import ts from 'typescript';

const here = (f) => new URL(`../${f}`, import.meta.url);

function has(node, kind) {
  return (ts.canHaveModifiers(node) ? ts.getModifiers(node) ?? [] : []).some((m) => m.kind === kind);
}

/** The values a .d.ts declares as exported: name -> {kind, params?, members?}. */
async function declared(file) {
  const text = await readFile(here(file), 'utf8');
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const out = new Map();
  for (const st of src.statements) {
    if (ts.isExportAssignment(st)) out.set('default', { kind: 'alias', of: st.expression.getText(src) });
    if (!has(st, ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isFunctionDeclaration(st)) {
      const prev = out.get(st.name.text);
      const params = Math.max(prev?.params ?? 0, st.parameters.length); // overloads: the widest
      out.set(st.name.text, { kind: 'function', params });
    } else if (ts.isClassDeclaration(st)) {
      const members = { methods: new Set(), statics: new Set(), properties: new Set() };
      for (const m of st.members) {
        const name = m.name?.getText(src);
        if (!name) continue;
        const isStatic = has(m, ts.SyntaxKind.StaticKeyword);
        if (ts.isMethodDeclaration(m)) (isStatic ? members.statics : members.methods).add(name);
        else if (ts.isPropertyDeclaration(m) && !isStatic) members.properties.add(name);
      }
      out.set(st.name.text, { kind: 'class', members });
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) out.set(d.name.getText(src), { kind: 'const' });
    }
  }
  return out;
}

function ownNames(o, skip) {
  return new Set(Object.getOwnPropertyNames(o).filter((n) => !skip.includes(n)));
}

const instances = {
  Clashd: async (m) => new m.Clashd('http://127.0.0.1:1'),
  ClashdProblem: async (m) => new m.ClashdProblem(422, { type: 'urn:clashd:problem:invalid-query', detail: 'x' }),
  ClashdThree: async (m) => new m.ClashdThree(new (await import('../clashd.js')).Clashd('http://127.0.0.1:1')),
};

for (const [js, dts] of [['clashd.js', 'clashd.d.ts'], ['three.js', 'three.d.ts']]) {
  test(`${dts} declares exactly what ${js} exports`, async () => {
    const mod = await import(here(js));
    const decl = await declared(dts);
    assert.deepEqual(Object.keys(mod).sort(), [...decl.keys()].sort(), 'exported names');
    for (const [name, d] of decl) {
      const v = mod[name];
      if (d.kind === 'alias') {
        assert.equal(v, mod[d.of], `default is ${d.of}`);
      } else if (d.kind === 'const') {
        assert.notEqual(typeof v, 'function', `${name} is a value`);
      } else if (d.kind === 'function') {
        assert.equal(typeof v, 'function', name);
        assert.ok(!/^class\b/.test(Function.prototype.toString.call(v)), `${name} is a function, not a class`);
        assert.ok(v.length <= d.params, `${name} reads ${v.length} parameters, declares ${d.params}`);
      } else {
        assert.match(Function.prototype.toString.call(v), /^class\b/, `${name} is a class`);
        assert.deepEqual(ownNames(v.prototype, ['constructor']), d.members.methods, `${name}'s methods`);
        assert.deepEqual(ownNames(v, ['length', 'name', 'prototype']), d.members.statics, `${name}'s static methods`);
        if (instances[name]) {
          const o = await instances[name](mod);
          for (const p of d.members.properties) assert.ok(p in o, `${name} instance has ${p}`);
        }
      }
    }
  });
}
