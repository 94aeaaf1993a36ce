/**
 * A host stylesheet that restyles every element the kit uses, with element selectors only (the
 * kind of rules resets, frameworks and older app CSS have), outside any layer. The kit's CSS
 * test and the "hostile host CSS" story put the kit under it.
 */
export const HOSTILE_CSS = `
* { box-sizing: content-box; }
body { font: 17px/2 "Courier New", monospace; letter-spacing: .08em; text-transform: lowercase; color: #333; }
label { display: inline-block; margin-bottom: .75rem; font-weight: 700; text-transform: uppercase; }
button { border-radius: 0; text-transform: uppercase; background: #e0e0e0; color: #000; border: 2px solid #000;
  padding: 12px 24px; margin: 4px; font-size: 18px; box-shadow: 0 2px 0 #000; min-height: 60px; }
input, textarea { border-radius: 0; border: 0; border-bottom: 2px solid #999; padding: 10px; margin: 0 0 1rem;
  width: 200px; height: 50px; background: #ffffe0; font-size: 19px; }
h2 { font-size: 2.5rem; margin: 2rem 0; text-transform: uppercase; color: purple; }
p { margin: 0 0 1.5rem; line-height: 2; font-size: 18px; }
fieldset { border: 2px groove #ccc; padding: 1rem; margin: 1rem 0; }
legend { float: left; width: 100%; font-size: 1.5rem; padding: 0 1rem; }
ul { list-style: square; padding-left: 40px; margin: 1em 0; }
li { margin-bottom: .5rem; }
a { color: red; text-decoration: none; font-weight: bold; }
div { line-height: 3; padding: 2px; }
span { letter-spacing: .2em; margin: 0 2px; }
article { border: 3px double #000; margin: 1rem; }
form label { color: green; }
div span { display: inline-block; padding: 3px; }
`;
