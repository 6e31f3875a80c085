{#- courselab: nbgrader's page, with the link that opens the new-student form bound by a script rather than an onclick
    attribute (no policy then needs 'unsafe-hashes'). -#}
{%- extends "nbgrader/manage_students.tpl" -%}
{%- block table_footer -%}
<tr>
  <td colspan="5">
    <span class="glyphicon glyphicon-plus" aria-hidden="true"></span>
    <a href="#" id="courselab-new-student">Add new student...</a>
    <script>document.getElementById("courselab-new-student").addEventListener("click", function (event) { event.preventDefault(); createStudentModal(); });</script>
  </td>
</tr>
{%- endblock -%}
